/**
 * A full check of the pruned keyword index against the chunks it indexes (crash tests, the concurrency soak and
 * `optimize`'s verification use it): every chunk has its document row (space, length, terms with counts), every
 * term's postings and document frequency agree, and the totals in `meta` are right. Reads everything: for tests and
 * maintenance, never on a search path.
 */
import type { Database, Statement } from 'better-sqlite3';
import { createTokensOf, KW_DOCS, KW_TOKENS } from './index.js';
import { tuples, unpack } from './postings.js';

/**
 * The problems found (empty when the index matches the chunks), at most `max` of them. Everything is read in one
 * read transaction: a writer committing meanwhile (another process) cannot make the tables look inconsistent.
 */
export function checkKeywordIndex(db: Database, max = 10): string[] {
  db.exec('BEGIN');
  try {
    return check(db, max);
  } finally {
    db.exec('COMMIT');
  }
}

function check(db: Database, max: number): string[] {
  const problems: string[] = [];
  const note = (p: string) => {
    if (problems.length < max) problems.push(p);
  };
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kw_log'").get()) return problems;
  const pending = (db.prepare('SELECT count(*) AS n FROM kw_log').get() as { n: number }).n;
  if (pending > 0) return problems; // Behind by design (written by another program): search uses FTS5 meanwhile.
  const cache = new Map<string, Statement>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  const tokensOf = createTokensOf(stmt, db);
  const chunks = db.prepare('SELECT rid, space, scope, agent_id, name, content FROM chunks ORDER BY rid').all() as {
    rid: number;
    space: string;
    scope: string;
    agent_id: string;
    name: string;
    content: string;
  }[];
  const codes = new Map(
    (db.prepare('SELECT agent_id, code FROM kw_owners').raw().all() as [string, number][]).map(([a, c]) => [a, c]),
  );
  const docs = new Map(
    (
      db.prepare('SELECT rid, part, dl, terms FROM kw_docs').all() as {
        rid: number;
        part: string;
        dl: number;
        terms: string;
      }[]
    ).map((d) => [d.rid, d]),
  );
  // Expected postings: "space\u0001term" → "rid:tf:dl:owner" in rid order.
  const expected = new Map<string, string[]>();
  const df = new Map<string, number>();
  let tokens = 0;
  const names = tokensOf(chunks.map((c) => c.name));
  const contents = tokensOf(chunks.map((c) => c.content));
  for (const [i, c] of chunks.entries()) {
    const counts = new Map<string, number>();
    for (const t of [...names[i]!, ...contents[i]!]) counts.set(t, (counts.get(t) ?? 0) + 1);
    const dl = names[i]!.length + contents[i]!.length;
    tokens += dl;
    const owner = c.scope === 'swarm' ? 0 : codes.get(c.agent_id);
    if (owner === undefined) note(`agent ${c.agent_id} of chunk ${c.rid} has no owner code`);
    const doc = docs.get(c.rid);
    if (!doc) note(`chunk ${c.rid} has no document row`);
    else {
      if (doc.part !== c.space || doc.dl !== dl)
        note(`chunk ${c.rid}: document row (${doc.part}, ${doc.dl}) ≠ (${c.space}, ${dl})`);
      const flat = [...counts].flatMap(([t, n]) => [t, String(n)]).join(' ');
      if (doc.terms !== flat) note(`chunk ${c.rid}: document terms differ`);
      docs.delete(c.rid);
    }
    for (const [t, n] of counts) {
      const key = `${c.space}\u0001${t}`;
      const list = expected.get(key) ?? [];
      list.push(`${c.rid}:${n}:${dl}:${owner}`);
      expected.set(key, list);
      df.set(t, (df.get(t) ?? 0) + 1);
    }
  }
  for (const rid of docs.keys()) note(`document row ${rid} has no chunk`);
  const actual = new Map<string, string[]>();
  for (const b of db
    .prepare('SELECT part, term, first, n, max_tf, min_dl, data FROM kw_blocks ORDER BY part, term, first')
    .all() as {
    part: string;
    term: string;
    first: number;
    n: number;
    max_tf: number;
    min_dl: number;
    data: Buffer;
  }[]) {
    const postings = tuples(unpack(b.data, b.first, b.n));
    if (postings[0]?.[0] !== b.first) note(`block (${b.part}, ${b.term}, ${b.first}) does not start at its key`);
    if (postings.some((p) => p[1] > b.max_tf || p[2] < b.min_dl))
      note(`block (${b.part}, ${b.term}, ${b.first}): bound too low`);
    const key = `${b.part}\u0001${b.term}`;
    const list = actual.get(key) ?? [];
    for (const p of postings) list.push(p.join(':'));
    actual.set(key, list);
  }
  for (const [key, list] of expected) {
    if ((actual.get(key) ?? []).join(' ') !== list.join(' '))
      note(`postings of ${key.replace('\u0001', ' / ')} differ`);
    actual.delete(key);
  }
  for (const key of actual.keys()) note(`postings of ${key.replace('\u0001', ' / ')} index no chunk`);
  const terms = new Map(
    (db.prepare('SELECT term, df FROM kw_terms').raw().all() as [string, number][]).map(([t, n]) => [t, n]),
  );
  for (const [t, n] of df) if (terms.get(t) !== n) note(`df of ${t}: ${terms.get(t)} ≠ ${n}`);
  for (const t of terms.keys()) if (!df.has(t)) note(`term ${t} has a df but no chunk`);
  const meta = (key: string) =>
    Number((db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value);
  if (meta(KW_DOCS) !== chunks.length) note(`${KW_DOCS} = ${meta(KW_DOCS)}, ${chunks.length} chunks`);
  if (meta(KW_TOKENS) !== tokens) note(`${KW_TOKENS} = ${meta(KW_TOKENS)}, ${tokens} tokens`);
  return problems;
}
