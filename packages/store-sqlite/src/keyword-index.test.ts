// The pruned keyword index (src/keyword/): its tokenizer against FTS5's own, its search against FTS5's bm25() on the
// same file (same hits, same order, same scores), and its upkeep under every kind of write — the store's own
// (store, edit, rename, delete), another program's raw SQL, and the `index.keyword` option's errors.
import { createHashingEmbedder, createStack, MemError, type Principal } from '@mem/core';
import { queryTerms, seededRandom } from '@mem/core/adapter';
import { keywordHits, tempDir } from '@mem/testkit';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from './index.js';
import { checkKeywordIndex } from './keyword/check.js';
import { asciiKeywordTokens } from './keyword/tokenizer.js';

const dir = tempDir('keyword-index');
afterAll(() => dir.remove());

/** What FTS5 `porter unicode61` makes of each text, read back through fts5vocab. */
function fts5Tokens(texts: string[]): string[][] {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE f USING fts5 (t, tokenize = 'porter unicode61');
      CREATE VIRTUAL TABLE v USING fts5vocab (f, 'instance');`);
    const insert = db.prepare('INSERT INTO f (rowid, t) VALUES (?, ?)');
    for (const [i, t] of texts.entries()) insert.run(i + 1, t);
    const out: string[][] = texts.map(() => []);
    for (const r of db.prepare('SELECT term, doc, offset FROM v').all() as {
      term: string;
      doc: number;
      offset: number;
    }[])
      out[r.doc - 1]![r.offset] = r.term;
    return out;
  } finally {
    db.close();
  }
}

describe('tokenizer', () => {
  it('stems ASCII text exactly as FTS5 porter unicode61 does (rule words and 5,000 random words)', () => {
    const rules = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping
      tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer
      conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness
      hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical
      hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
      adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate
      rate cease controll roll generalizations oscillators yelling syzygy aed eed ied ies sses ss s y yy by bys logi
      archaeology analogies deploys deployed deploying retries retried Don't it's 3rd 42nd v2 HTTP/2 e-mail a1b2c3`;
    const r = seededRandom(11);
    const letters = 'abcdeefghiilmnoorsstuyyz';
    const words = Array.from({ length: 5000 }, () =>
      Array.from({ length: 1 + Math.floor(r() * 12) }, () => letters[Math.floor(r() * letters.length)]).join(''),
    );
    const texts = [rules, ...Array.from({ length: 50 }, (_, i) => words.slice(i * 100, i * 100 + 100).join(' '))];
    const expected = fts5Tokens(texts);
    for (const [i, t] of texts.entries()) expect(asciiKeywordTokens(t)).toEqual(expected[i]);
  });
});

const VOCAB =
  `billing payments deploy deploys deployed deploying pipeline staging cluster search index auth gateway mobile
  app warehouse onboarding invoice webhook relay cache layer feature flag support inbox backup metrics exporter retries
  timeout rebuilt sunday night health checks postgres redis platform team collector cpu schema mismatch config minutes
  region customer acme roadmap memory leak worker café naïve Straße 東京 résumé`.split(/\s+/);

function corpusText(r: () => number): string {
  const n = 3 + Math.floor(r() * 25);
  const words: string[] = [];
  // Zipf-like: early words far more common; some words repeated in a memory (tf > 1).
  for (let i = 0; i < n; i++) words.push(VOCAB[Math.floor(VOCAB.length * r() ** 2.2)]!);
  return words.join(r() < 0.2 ? ', ' : ' ');
}

async function openPair(name: string) {
  const path = dir.join(`${name}.db`);
  const pruned = createSqliteStore({ path });
  const exact = createSqliteStore({ path, index: { keyword: { type: 'fts5' } } });
  const embedder = createHashingEmbedder({ dimension: 64 });
  const stack = createStack({ knowledge: pruned, embedder });
  return { path, pruned, exact, stack };
}

type Store = ReturnType<typeof createSqliteStore>;

/** The same query through the pruned index and through FTS5: same ids in the same order, scores equal to 1e-9. */
async function expectSameHits(pruned: Store, exact: Store, r: () => number, queries: number, now: string) {
  let compared = 0;
  for (let q = 0; q < queries; q++) {
    const query = corpusText(r)
      .split(/[ ,]+/)
      .slice(0, 1 + Math.floor(r() * 6))
      .join(' ');
    const terms = queryTerms(query);
    const filter = {
      space: r() < 0.8 ? 'main' : 'other',
      viewerAgentId: `agent-${Math.floor(r() * 4)}`,
      now,
      ...(r() < 0.25 ? { scope: r() < 0.5 ? ('swarm' as const) : ('agent' as const) } : {}),
    };
    const limit = [1, 5, 30][Math.floor(r() * 3)]!;
    const a = await keywordHits(pruned, { filter, terms, limit });
    const b = await keywordHits(exact, { filter, terms, limit });
    expect(
      a.map((h) => h.id),
      `${query} ${JSON.stringify(filter)}`,
    ).toEqual(b.map((h) => h.id));
    for (const [i, h] of a.entries()) expect(h.score).toBeCloseTo(b[i]!.score, 9);
    compared += a.length;
  }
  // The comparison was not vacuous.
  expect(compared).toBeGreaterThan(queries * 3);
}

describe('pruned keyword search', () => {
  it('returns what FTS5 bm25() returns, for every viewer, scope filter and limit, and after edits, renames and deletions', async () => {
    const { path, pruned, exact, stack } = await openPair('same');
    const r = seededRandom(5);
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) {
      const space = r() < 0.85 ? 'main' : 'other';
      const agent = `agent-${Math.floor(r() * 4)}`;
      const p: Principal = { space, agentId: agent, role: 'worker' };
      const result = await stack.knowledge.store(p, {
        content: corpusText(r),
        scope: r() < 0.4 ? 'swarm' : 'agent',
      });
      if (space === 'main') ids.push(`${agent}\u0000${result.id}`);
    }
    // Some memories expire in an hour (set as another program would: expiry is read at search time).
    const raw = new Database(path);
    raw.prepare('UPDATE chunks SET expires_at = ? WHERE rid % 13 = 0').run(new Date(now + 3_600_000).toISOString());
    raw.close();
    const soon = new Date(now + 60_000).toISOString();
    const later = new Date(now + 7_200_000).toISOString(); // past the TTL: expired memories drop out of both
    await expectSameHits(pruned, exact, r, 150, soon);
    await expectSameHits(pruned, exact, r, 60, later);
    expect(checkKeywordIndex(new Database(path, { readonly: true }))).toEqual([]);

    // Edits (new content, new key) and deletions through the store: the index follows in the same transaction.
    for (const [n, entry] of ids.slice(0, 60).entries()) {
      const [agentId, id] = entry.split('\u0000') as [string, string];
      const p: Principal = { space: 'main', agentId, role: 'worker' };
      if (n % 3 === 0) await stack.knowledge.edit(p, { id, intent: 'test', content: corpusText(r) });
      else if (n % 3 === 1) await stack.knowledge.edit(p, { id, intent: 'test', newKey: `/renamed/${n}` });
      else await stack.knowledge.delete(p, { id });
    }
    expect(checkKeywordIndex(new Database(path, { readonly: true }))).toEqual([]);
    await expectSameHits(pruned, exact, r, 100, soon);
    await pruned.close();
    await exact.close();
  });

  it('stays right when another program writes the file: FTS5 answers until a store write brings the index up to date', async () => {
    const { path, pruned, exact, stack } = await openPair('foreign');
    const r = seededRandom(9);
    for (let i = 0; i < 120; i++) {
      const p: Principal = { space: 'main', agentId: `agent-${i % 3}`, role: 'worker' };
      await stack.knowledge.store(p, { content: corpusText(r), scope: i % 2 ? 'swarm' : 'agent' });
    }
    const raw = new Database(path);
    // A move to the swarm, new content, a deletion: as a program without mem would do them, straight in SQL.
    raw.exec(`UPDATE chunks SET scope = 'swarm' WHERE rid IN (SELECT rid FROM chunks WHERE scope = 'agent' LIMIT 10);
      UPDATE chunks SET content = 'webhook relay webhook cache café' WHERE rid IN (SELECT rid FROM chunks LIMIT 5 OFFSET 20);
      DELETE FROM chunks WHERE rid IN (SELECT rid FROM chunks LIMIT 5 OFFSET 40);`);
    expect((raw.prepare('SELECT count(*) AS n FROM kw_log').get() as { n: number }).n).toBeGreaterThan(0);
    const now = new Date().toISOString();
    await expectSameHits(pruned, exact, r, 60, now);
    // The next write through the store applies the log in its own transaction.
    await stack.knowledge.store({ space: 'main', agentId: 'agent-0', role: 'worker' }, { content: 'webhook relay' });
    expect((raw.prepare('SELECT count(*) AS n FROM kw_log').get() as { n: number }).n).toBe(0);
    expect(checkKeywordIndex(raw)).toEqual([]);
    await expectSameHits(pruned, exact, r, 60, now);
    raw.close();
    await pruned.close();
    await exact.close();
  });

  it('serves postings from the connection cache and never a stale one: own writes, another store on the file', async () => {
    const { path, pruned, exact, stack } = await openPair('cached');
    const second = createSqliteStore({ path });
    const secondStack = createStack({ knowledge: second, embedder: createHashingEmbedder({ dimension: 64 }) });
    const uncached = createSqliteStore({ path, index: { keyword: { cacheMiB: 0 } } });
    const r = seededRandom(21);
    const now = new Date().toISOString();
    for (let i = 0; i < 200; i++) {
      const p: Principal = { space: 'main', agentId: `agent-${i % 3}`, role: 'worker' };
      await stack.knowledge.store(p, { content: corpusText(r), scope: i % 2 ? 'swarm' : 'agent' });
    }
    // Warm: the common terms' postings are now held by `pruned`'s connection.
    await expectSameHits(pruned, exact, r, 60, now);
    await expectSameHits(uncached, exact, r, 30, now);
    expect(
      pruned.db.prepare("SELECT count(*) AS n FROM temp.sqlite_master WHERE name LIKE 'mem_cache_kw%'").get(),
    ).toEqual({
      n: 4,
    });
    const viewer = { space: 'main', viewerAgentId: 'agent-0', now };
    const ids = async (store: Store, query: string) =>
      (await keywordHits(store, { filter: viewer, terms: queryTerms(query), limit: 50 })).map((h) => h.id);
    // Another store on the file adds memories with common words (cached lists) and removes one of the hits.
    const before = await ids(pruned, 'billing deploy');
    const added = await secondStack.knowledge.store(
      { space: 'main', agentId: 'agent-0', role: 'worker' },
      { content: 'billing deploy billing deploy', scope: 'swarm' },
    );
    expect(await ids(pruned, 'billing deploy')).toContain(added.id);
    const gone = await second.getChunk('main', before[0]!);
    await second.deleteDocument('main', gone!.docId);
    expect(await ids(pruned, 'billing deploy')).not.toContain(before[0]);
    await expectSameHits(pruned, exact, r, 40, now);
    // Own writes with the cache warm: an edit drops the old words' postings, a store adds new ones.
    const own = await stack.knowledge.store(
      { space: 'main', agentId: 'agent-1', role: 'worker' },
      { content: 'webhook relay webhook relay webhook', scope: 'swarm' },
    );
    expect((await ids(pruned, 'webhook relay'))[0]).toBe(own.id);
    await stack.knowledge.edit(
      { space: 'main', agentId: 'agent-1', role: 'worker' },
      { id: own.id, intent: 'test', content: 'metrics exporter' },
    );
    // (The name keeps the first words of the old content, so the memory still matches them, with a lower score.)
    expect(await ids(pruned, 'webhook relay')).toEqual(await ids(exact, 'webhook relay'));
    expect(await ids(pruned, 'metrics exporter')).toContain(own.id);
    expect(await ids(pruned, 'metrics exporter')).toEqual(await ids(exact, 'metrics exporter'));
    await expectSameHits(pruned, exact, r, 40, now);
    await expectSameHits(uncached, pruned, r, 40, now);
    await second.close();
    await uncached.close();
    await pruned.close();
    await exact.close();
  });

  it('refuses a cacheMiB that is not a number of MiB >= 0 with INVALID_INPUT', () => {
    for (const cacheMiB of [-1, Number.NaN, Number.POSITIVE_INFINITY, '64']) {
      let error: unknown;
      try {
        // @ts-expect-error: '64' is not a number
        createSqliteStore({ path: dir.join('bad-cache.db'), index: { keyword: { cacheMiB } } });
      } catch (e) {
        error = e;
      }
      expect(MemError.is(error) && error.code).toBe('INVALID_INPUT');
      expect((error as Error).message).toMatch(/index\.keyword\.cacheMiB must be a finite number of MiB >= 0/);
    }
  });

  it('refuses an unknown index.keyword.type with INVALID_INPUT', () => {
    let error: unknown;
    try {
      // @ts-expect-error: not a type the option takes
      createSqliteStore({ path: dir.join('bad.db'), index: { keyword: { type: 'wand' } } });
    } catch (e) {
      error = e;
    }
    expect(MemError.is(error) && error.code).toBe('INVALID_INPUT');
    expect((error as Error).message).toMatch(/index\.keyword\.type must be 'pruned' or 'fts5'/);
  });
});
