// The per-connection read cache (src/read-cache.ts): own writes drop exactly the keys they touched (whatever
// statement or trigger wrote them), another connection's commit drops everything, a transaction bypasses the cache,
// a rollback leaves it true, and the byte budget evicts the least recently used entries.
import { tempDir } from '@mem/testkit';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createReadCache, type ReadCache } from './read-cache.js';

const dir = tempDir('read-cache');
afterAll(() => dir.remove());

interface Entry {
  bytes: number;
  value: string;
}

let files = 0;
function setup(budgetBytes = 1_000_000): {
  a: Database.Database;
  b: Database.Database;
  cache: ReadCache<number, Entry>;
  read: (k: number) => string | undefined;
} {
  const path = dir.join(`cache-${files++}.db`);
  const a = new Database(path);
  a.pragma('journal_mode = WAL');
  a.exec(`CREATE TABLE t (k INTEGER NOT NULL, id INTEGER PRIMARY KEY, v TEXT NOT NULL);
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TRIGGER parent_gone AFTER DELETE ON parent BEGIN DELETE FROM t WHERE id = old.id; END;`);
  const b = new Database(path);
  const statements = new Map<string, Database.Statement>();
  const stmt = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = a.prepare(sql)));
    return s;
  };
  const cache = createReadCache<number, Entry>(a, stmt, {
    name: 'test',
    table: 't',
    key: '$.k',
    toKey: Number,
    budgetBytes,
  });
  /** A cached read of key k: the values of its rows joined, from the cache when there. */
  const read = (k: number) => {
    if (!cache.sync()) return 'bypassed';
    const hit = cache.get(k);
    if (hit) return `cached:${hit.value}`;
    const value = (
      a.prepare('SELECT group_concat(v) AS v FROM (SELECT v FROM t WHERE k = ? ORDER BY id)').get(k) as {
        v: string | null;
      }
    ).v;
    if (value === null) return undefined;
    cache.set(k, { bytes: value.length, value });
    return value;
  };
  return { a, b, cache, read };
}

describe('read cache', () => {
  it('drops exactly the keys this connection wrote, by any statement or trigger', () => {
    const { a, b, read } = setup();
    a.exec(`INSERT INTO t (k, id, v) VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z'); INSERT INTO parent VALUES (3);`);
    expect([read(1), read(2), read(3)]).toEqual(['x', 'y', 'z']);
    expect([read(1), read(2), read(3)]).toEqual(['cached:x', 'cached:y', 'cached:z']);
    a.prepare(`INSERT INTO t (k, id, v) VALUES (1, 10, 'x2')`).run();
    a.prepare(`UPDATE t SET k = 2 WHERE id = 1`).run(); // leaves key 1, enters key 2
    expect([read(1), read(2), read(3)]).toEqual(['x2', 'x,y', 'cached:z']);
    a.prepare('DELETE FROM parent WHERE id = 3').run(); // the row of key 3 leaves through a trigger
    expect(read(3)).toBeUndefined();
    expect(read(1)).toBe('cached:x2');
    a.close();
    b.close();
  });

  it("drops everything after another connection's commit", () => {
    const { a, b, read } = setup();
    a.exec(`INSERT INTO t (k, id, v) VALUES (1, 1, 'x'), (2, 2, 'y')`);
    expect([read(1), read(2)]).toEqual(['x', 'y']);
    expect(read(2)).toBe('cached:y');
    b.prepare(`INSERT INTO t (k, id, v) VALUES (1, 5, 'w')`).run();
    expect([read(1), read(2)]).toEqual(['x,w', 'y']);
    expect(read(2)).toBe('cached:y');
    a.close();
    b.close();
  });

  it('is bypassed inside a transaction and stays true when a write rolls back', () => {
    const { a, b, read } = setup();
    a.exec(`INSERT INTO t (k, id, v) VALUES (1, 1, 'x')`);
    expect(read(1)).toBe('x');
    expect(() =>
      a.transaction(() => {
        a.prepare(`UPDATE t SET v = 'changed' WHERE k = 1`).run();
        expect(read(1)).toBe('bypassed');
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(read(1)).toBe('cached:x');
    a.transaction(() => a.prepare(`UPDATE t SET v = 'kept' WHERE k = 1`).run())();
    expect(read(1)).toBe('kept');
    a.close();
    b.close();
  });

  it('keeps within its byte budget, least recently used out first; a zero budget turns it off', () => {
    const { a, b, cache, read } = setup(10);
    a.exec(`INSERT INTO t (k, id, v) VALUES (1, 1, 'aaaa'), (2, 2, 'bbbb'), (3, 3, 'cccc')`);
    read(1);
    read(2);
    expect(read(1)).toBe('cached:aaaa'); // 1 is now the most recent
    read(3); // 12 bytes > 10: 2 goes
    expect(cache.stats()).toEqual({ entries: 2, bytes: 8 });
    expect(read(2)).toBe('bbbb');
    a.close();
    b.close();
    const off = setup(0);
    off.a.exec(`INSERT INTO t (k, id, v) VALUES (1, 1, 'x')`);
    expect(off.read(1)).toBe('bypassed');
    off.a.close();
    off.b.close();
  });
});
