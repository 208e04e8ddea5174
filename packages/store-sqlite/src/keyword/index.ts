/**
 * The pruned keyword index of the SQLite knowledge store: per-term posting blocks kept in the file, partitioned by
 * who may see a chunk, so that a search reads only the postings of its query terms in the viewer's partitions and
 * scores them with MaxScore (`search.ts`) instead of FTS5 scoring every row that matches any term.
 *
 * Tables (derived data, created on open when missing; FTS5 stays the complete index and the exact fallback):
 * - `kw_blocks (part, term, first, n, max_tf, min_dl, data)`: postings of `term` in space `part`, `BLOCK` at most
 *   per row, in rid order; each posting carries who sees the chunk (`postings.ts`), so visibility is checked while
 *   scoring without reading chunks.
 * - `kw_owners (agent_id, code)`: the small number standing for an agent in postings (0 is the swarm).
 * - `kw_docs (rid, part, dl, terms)`: what is indexed for each chunk (its space, token count, terms with counts),
 *   so that removing or moving a chunk needs no text.
 * - `kw_terms (term, df)`: in how many chunks each term occurs (all spaces: FTS5's bm25() counts the same way).
 * - `kw_log (rid)`: chunks inserted, deleted or changed since the index last caught up, filled by triggers on
 *   `chunks` whoever writes. The store applies the log at the end of each of its write transactions (`flush`); a
 *   search while the log is not empty uses FTS5, so a write by another program never makes search miss a memory.
 * - `meta` keys `kw.docs` and `kw.tokens`: the chunk count and total token count (bm25's N and average length).
 */
import type { Database, Statement } from 'better-sqlite3';
import { createReadCache } from '../read-cache.js';
import { BLOCK, type Posting, pack, tuples, unpack } from './postings.js';
import { readTermPostings, type TermPostings } from './search.js';
import { asciiKeywordTokens, isAscii } from './tokenizer.js';

const PAGE = 50_000;

export const KW_DOCS = 'kw.docs';
export const KW_TOKENS = 'kw.tokens';

/** Create the tables and triggers when missing, and log every existing chunk for indexing. */
export function ensureKeywordIndexSchema(db: Database): void {
  const exists = () => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kw_log'").get();
  if (exists()) return;
  db.transaction(() => {
    if (exists()) return;
    db.exec(`
      CREATE TABLE kw_blocks (
        part   TEXT    NOT NULL,
        term   TEXT    NOT NULL,
        first  INTEGER NOT NULL,
        n      INTEGER NOT NULL,
        max_tf INTEGER NOT NULL,
        min_dl INTEGER NOT NULL,
        data   BLOB    NOT NULL,
        PRIMARY KEY (part, term, first)
      ) WITHOUT ROWID;
      CREATE TABLE kw_docs (
        rid   INTEGER PRIMARY KEY,
        part  TEXT    NOT NULL,
        dl    INTEGER NOT NULL,
        terms TEXT    NOT NULL
      );
      CREATE TABLE kw_owners (
        agent_id TEXT PRIMARY KEY,
        code     INTEGER NOT NULL UNIQUE
      ) WITHOUT ROWID;
      CREATE TABLE kw_terms (
        term TEXT PRIMARY KEY,
        df   INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE kw_log (rid INTEGER PRIMARY KEY);
      CREATE TRIGGER kw_log_insert AFTER INSERT ON chunks BEGIN
        INSERT OR IGNORE INTO kw_log (rid) VALUES (new.rid);
      END;
      CREATE TRIGGER kw_log_delete AFTER DELETE ON chunks BEGIN
        INSERT OR IGNORE INTO kw_log (rid) VALUES (old.rid);
      END;
      CREATE TRIGGER kw_log_update AFTER UPDATE OF name, content, space, scope, agent_id ON chunks BEGIN
        INSERT OR IGNORE INTO kw_log (rid) VALUES (new.rid);
      END;
      INSERT INTO kw_log (rid) SELECT rid FROM chunks;
      INSERT INTO meta (key, value) VALUES ('${KW_DOCS}', '0'), ('${KW_TOKENS}', '0')
        ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    `);
  }).immediate();
}

/** Terms with their counts, and the token count, of one chunk (name and content, as FTS5 indexes them). */
export interface DocTerms {
  dl: number;
  terms: Map<string, number>;
}

/**
 * Tokens of texts the JavaScript tokenizer cannot vouch for (any non-ASCII character): FTS5 tokenizes them itself,
 * in a temporary FTS5 table of the connection, read back through fts5vocab.
 */
export function createFts5Tokens(stmt: (sql: string) => Statement, db: Database): (texts: string[]) => string[][] {
  let ready = false;
  return (texts) => {
    if (texts.length === 0) return [];
    if (!ready) {
      db.exec(`
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_tok USING fts5 (t, tokenize = 'porter unicode61');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_tok_v USING fts5vocab (temp, kw_tok, 'instance');
      `);
      ready = true;
    }
    const insert = stmt('INSERT INTO temp.kw_tok (rowid, t) VALUES (?, ?)');
    for (const [i, t] of texts.entries()) insert.run(i + 1, t);
    const out: string[][] = texts.map(() => []);
    for (const row of stmt('SELECT term, doc, offset FROM temp.kw_tok_v').all() as {
      term: string;
      doc: number;
      offset: number;
    }[])
      out[row.doc - 1]![row.offset] = row.term;
    stmt('DELETE FROM temp.kw_tok').run();
    return out.map((tokens) => tokens.filter((t) => t !== undefined));
  };
}

export interface KeywordIndex {
  /** The code of an agent in postings, or undefined when no chunk of it was ever indexed. */
  ownerCode(agentId: string): number | undefined;
  /** Inside a write transaction, before it commits: apply the log (at most a page of rows beyond this write's own). */
  flush(): void;
  /** Terms of a query term as FTS5 would tokenize it (null: not a single token, so the exact path must answer). */
  queryTokens(terms: readonly string[]): (string | null)[];
  /** True when the log is empty, so that the postings are complete. */
  current(): boolean;
  /**
   * For one search, outside any transaction: the postings of a term in space `part`, from the connection's read
   * cache when it holds them (kept true under every writer, see read-cache.ts), else read from the file.
   */
  postingsReader(part: string): (term: string) => TermPostings;
}

/** The largest tf and the smallest length among postings[from, to): the block's bound. */
function bounds(postings: readonly Posting[], from: number, to: number): [number, number] {
  let maxTf = 0;
  let minDl = Number.MAX_SAFE_INTEGER;
  for (let i = from; i < to; i++) {
    const p = postings[i]!;
    if (p[1] > maxTf) maxTf = p[1];
    if (p[2] < minDl) minDl = p[2];
  }
  return [maxTf, minDl];
}

interface BlockRow {
  first: number;
  n: number;
  data: Buffer;
}

/** Tokens of each text as FTS5 `porter unicode61` makes them: in JavaScript for ASCII text, by FTS5 otherwise. */
export function createTokensOf(stmt: (sql: string) => Statement, db: Database): (texts: string[]) => string[][] {
  const fts5Tokens = createFts5Tokens(stmt, db);
  return (texts) => {
    const out: string[][] = new Array(texts.length);
    const hard: number[] = [];
    for (const [i, t] of texts.entries()) {
      if (isAscii(t)) out[i] = asciiKeywordTokens(t);
      else hard.push(i);
    }
    if (hard.length > 0) {
      const tokens = fts5Tokens(hard.map((i) => texts[i]!));
      for (const [j, i] of hard.entries()) out[i] = tokens[j]!;
    }
    return out;
  };
}

export function createKeywordIndex(
  db: Database,
  stmt: (sql: string) => Statement,
  options: { cacheBytes: number },
): KeywordIndex {
  const tokensOf = createTokensOf(stmt, db);
  // Decoded postings per (space, term); a write to a term's blocks drops that term.
  const cache = createReadCache<string, TermPostings>(db, stmt, {
    name: 'kw_blocks',
    table: 'kw_blocks',
    key: '$.part || char(1) || $.term',
    toKey: String,
    budgetBytes: options.cacheBytes,
  });

  function addMeta(key: string, delta: number): void {
    if (delta === 0) return;
    stmt('UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) WHERE key = ?').run(delta, key);
  }

  /** Write `postings` (sorted, all after the term's untouched blocks) as new blocks of BLOCK. */
  function writeBlocks(part: string, term: string, postings: readonly Posting[]): void {
    const put = stmt('INSERT INTO kw_blocks (part, term, first, n, max_tf, min_dl, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (let from = 0; from < postings.length; from += BLOCK) {
      const to = Math.min(postings.length, from + BLOCK);
      put.run(part, term, postings[from]![0], to - from, ...bounds(postings, from, to), pack(postings, from, to));
    }
  }

  /**
   * Apply removals and additions to the blocks of one (space, term). Inserts only (the usual write) go after the
   * term's last posting: the last block is filled in place and new blocks follow. Otherwise each run of changes
   * falling in one block rewrites that block alone (split when it grows past BLOCK).
   */
  function editTerm(
    part: string,
    term: string,
    removed: Set<number>,
    added: Posting[],
    lastBlocks?: ReadonlyMap<string, BlockRow>,
  ): void {
    added.sort((a, b) => a[0] - b[0]);
    if (removed.size === 0 && added.length > 0) {
      const last =
        lastBlocks !== undefined
          ? lastBlocks.get(term)
          : (stmt('SELECT first, n, data FROM kw_blocks WHERE part = ? AND term = ? ORDER BY first DESC LIMIT 1').get(
              part,
              term,
            ) as BlockRow | undefined);
      if (last === undefined) {
        writeBlocks(part, term, added);
        return;
      }
      const kept = tuples(unpack(last.data, last.first, last.n));
      if (added[0]![0] > kept[kept.length - 1]![0]) {
        const fill = Math.min(Math.max(0, BLOCK - kept.length), added.length);
        if (fill > 0) {
          // Same key: an update in place, not a delete and an insert.
          const merged = kept.concat(added.slice(0, fill));
          stmt(
            'UPDATE kw_blocks SET n = ?, max_tf = ?, min_dl = ?, data = ? WHERE part = ? AND term = ? AND first = ?',
          ).run(
            merged.length,
            ...bounds(merged, 0, merged.length),
            pack(merged, 0, merged.length),
            part,
            term,
            last.first,
          );
        }
        writeBlocks(part, term, added.slice(fill));
        return;
      }
    }
    const changed = [...new Set([...removed, ...added.map((x) => x[0])])].sort((x, y) => x - y);
    const at = stmt(
      'SELECT first, n, data FROM kw_blocks WHERE part = ? AND term = ? AND first <= ? ORDER BY first DESC LIMIT 1',
    );
    const head = stmt('SELECT first, n, data FROM kw_blocks WHERE part = ? AND term = ? ORDER BY first LIMIT 1');
    const after = stmt('SELECT first FROM kw_blocks WHERE part = ? AND term = ? AND first > ? ORDER BY first LIMIT 1');
    const drop = stmt('DELETE FROM kw_blocks WHERE part = ? AND term = ? AND first = ?');
    let i = 0;
    let a = 0;
    while (i < changed.length) {
      const block = (at.get(part, term, changed[i]) ?? head.get(part, term)) as BlockRow | undefined;
      const next = block
        ? ((after.get(part, term, block.first) as { first: number } | undefined)?.first ?? Number.POSITIVE_INFINITY)
        : Number.POSITIVE_INFINITY;
      while (i < changed.length && changed[i]! < next) i++;
      // The block's surviving postings and the additions below `next`, in rid order.
      const merged: Posting[] = [];
      const kept = block ? tuples(unpack(block.data, block.first, block.n)) : [];
      let k = 0;
      while (k < kept.length || (a < added.length && added[a]![0] < next)) {
        const takeAdded = a < added.length && added[a]![0] < next && (k >= kept.length || added[a]![0] < kept[k]![0]);
        if (takeAdded) merged.push(added[a++]!);
        else {
          if (!removed.has(kept[k]![0])) merged.push(kept[k]!);
          k++;
        }
      }
      if (block) drop.run(part, term, block.first);
      writeBlocks(part, term, merged);
    }
  }

  /**
   * Apply the document-frequency changes in one statement; returns the terms that had no postings anywhere before
   * (their postings are written without looking for blocks). A term whose frequency falls to 0 is dropped.
   */
  function applyDf(df: ReadonlyMap<string, number>): Set<string> {
    const changes: Record<string, number> = Object.create(null);
    let dropping = false;
    for (const [term, delta] of df) {
      if (delta === 0) continue;
      changes[term] = delta;
      if (delta < 0) dropping = true;
    }
    const after = stmt(
      `INSERT INTO kw_terms (term, df) SELECT key, value FROM json_each(?) WHERE true
       ON CONFLICT (term) DO UPDATE SET df = df + excluded.df RETURNING term, df`,
    )
      .raw()
      .all(JSON.stringify(changes)) as [string, number][];
    const fresh = new Set<string>();
    for (const [term, now] of after) if (now === changes[term]) fresh.add(term);
    if (dropping)
      stmt('DELETE FROM kw_terms WHERE df <= 0 AND term IN (SELECT key FROM json_each(?))').run(
        JSON.stringify(changes),
      );
    return fresh;
  }

  /** The last block of each of `terms` in `part` that has blocks, in one statement. */
  function lastBlocksOf(part: string, terms: readonly string[]): Map<string, BlockRow> {
    const out = new Map<string, BlockRow>();
    if (terms.length === 0) return out;
    const rows = stmt(
      `SELECT b.term AS term, b.first AS first, b.n AS n, b.data AS data FROM json_each(?) j CROSS JOIN kw_blocks b
       WHERE b.part = ? AND b.term = j.value
         AND b.first = (SELECT max(first) FROM kw_blocks WHERE part = ? AND term = j.value)`,
    ).all(JSON.stringify(terms), part, part) as (BlockRow & { term: string })[];
    for (const row of rows) out.set(row.term, row);
    return out;
  }

  const owners = new Map<string, number>();
  /** The code standing for `agentId` in postings (created when `create`), or undefined when it has none. */
  function ownerCode(agentId: string, create: boolean): number | undefined {
    const cached = owners.get(agentId);
    if (cached !== undefined) return cached;
    let code = (stmt('SELECT code FROM kw_owners WHERE agent_id = ?').get(agentId) as { code: number } | undefined)
      ?.code;
    if (code === undefined && create) {
      code = (stmt('SELECT coalesce(max(code), 0) + 1 AS code FROM kw_owners').get() as { code: number }).code;
      stmt('INSERT INTO kw_owners (agent_id, code) VALUES (?, ?)').run(agentId, code);
    }
    // Codes are never reused or changed, so a connection may keep them (a rolled-back new code is not kept).
    if (code !== undefined && !create) owners.set(agentId, code);
    return code;
  }

  function flush(): void {
    const logged = (stmt('SELECT rid FROM kw_log ORDER BY rid LIMIT ?').raw().all(PAGE) as [number][]).map((r) => r[0]);
    if (logged.length === 0) return;
    const json = JSON.stringify(logged);
    const before = stmt(
      'SELECT k.rid AS rid, k.part AS part, k.dl AS dl, k.terms AS terms FROM json_each(?) j CROSS JOIN kw_docs k ON k.rid = j.value',
    ).all(json) as { rid: number; part: string; dl: number; terms: string }[];
    const after = stmt(
      `SELECT c.rid AS rid, c.space AS space, c.scope AS scope, c.agent_id AS agent_id, c.name AS name, c.content AS content
       FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value`,
    ).all(json) as { rid: number; space: string; scope: string; agent_id: string; name: string; content: string }[];

    // (part, term) → removed rids and added postings; term → df change.
    const edits = new Map<string, { part: string; term: string; removed: Set<number>; added: Posting[] }>();
    const df = new Map<string, number>();
    const edit = (part: string, term: string) => {
      const key = `${part}\u0001${term}`;
      let e = edits.get(key);
      if (e === undefined) {
        e = { part, term, removed: new Set(), added: [] };
        edits.set(key, e);
      }
      return e;
    };
    let docs = 0;
    let tokens = 0;
    const dropDoc = stmt('DELETE FROM kw_docs WHERE rid = ?');
    for (const old of before) {
      const parts = old.terms.split(' ');
      for (let i = 0; i < parts.length; i += 2) {
        const term = parts[i]!;
        edit(old.part, term).removed.add(old.rid);
        df.set(term, (df.get(term) ?? 0) - 1);
      }
      dropDoc.run(old.rid);
      docs--;
      tokens -= old.dl;
    }
    const nameTokens = tokensOf(after.map((r) => r.name));
    const contentTokens = tokensOf(after.map((r) => r.content));
    const codes = new Map<string, number>();
    const codeOf = (agentId: string) => {
      let code = codes.get(agentId);
      if (code === undefined) {
        code = ownerCode(agentId, true)!;
        codes.set(agentId, code);
      }
      return code;
    };
    const putDoc = stmt('INSERT INTO kw_docs (rid, part, dl, terms) VALUES (?, ?, ?, ?)');
    for (const [i, row] of after.entries()) {
      const counts = new Map<string, number>();
      for (const t of nameTokens[i]!) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const t of contentTokens[i]!) counts.set(t, (counts.get(t) ?? 0) + 1);
      const dl = nameTokens[i]!.length + contentTokens[i]!.length;
      const part = row.space;
      const owner = row.scope === 'swarm' ? 0 : codeOf(row.agent_id);
      const flat: string[] = [];
      for (const [term, tf] of counts) {
        edit(part, term).added.push([row.rid, tf, dl, owner]);
        df.set(term, (df.get(term) ?? 0) + 1);
        flat.push(term, String(tf));
      }
      putDoc.run(row.rid, part, dl, flat.join(' '));
      docs++;
      tokens += dl;
    }
    const fresh = applyDf(df);
    // Appends to terms that have postings read their last block, all of one space in one statement.
    const appends = new Map<string, string[]>();
    for (const e of edits.values()) {
      if (fresh.has(e.term) || e.removed.size > 0 || e.added.length === 0) continue;
      const terms = appends.get(e.part);
      if (terms === undefined) appends.set(e.part, [e.term]);
      else terms.push(e.term);
    }
    const lastBlocks = new Map<string, Map<string, BlockRow>>();
    for (const [part, terms] of appends) lastBlocks.set(part, lastBlocksOf(part, terms));
    for (const e of edits.values()) {
      if (fresh.has(e.term) && e.removed.size === 0) {
        e.added.sort((x, y) => x[0] - y[0]);
        writeBlocks(e.part, e.term, e.added);
      } else editTerm(e.part, e.term, e.removed, e.added, lastBlocks.get(e.part));
    }
    addMeta(KW_DOCS, docs);
    addMeta(KW_TOKENS, tokens);
    stmt('DELETE FROM kw_log WHERE rid IN (SELECT value FROM json_each(?))').run(json);
  }

  return {
    flush,
    ownerCode: (agentId) => ownerCode(agentId, false),
    queryTokens(terms) {
      const tokens = tokensOf([...terms]);
      return tokens.map((t) => (t.length === 1 ? t[0]! : null));
    },
    current() {
      return stmt('SELECT 1 FROM kw_log LIMIT 1').get() === undefined;
    },
    postingsReader(part) {
      if (!cache.sync()) return (term) => readTermPostings(stmt, part, term);
      return (term) => {
        const key = `${part}\u0001${term}`;
        let postings = cache.get(key);
        if (postings === undefined) {
          postings = readTermPostings(stmt, part, term);
          cache.set(key, postings);
        }
        return postings;
      };
    },
  };
}
