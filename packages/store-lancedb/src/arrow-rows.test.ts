import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it } from 'vitest';
import { rowsToTable } from './arrow-rows.js';
import { arrow, vectorField } from './schema.js';

// The Arrow table the knowledge store appends: built from rows by hand, checked on a real LanceDB table.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Utf8(), false),
  new arrow.Field('n', new arrow.Int32(), false),
  new arrow.Field('note', new arrow.Utf8(), true),
  new arrow.Field('tags', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), false),
  vectorField(3),
  vectorField(2),
]);

describe('rowsToTable', () => {
  it('appends rows with vectors in either column, nulls and lists that read back exactly as written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-arrow-'));
    dirs.push(dir);
    const conn = await lancedb.connect(dir);
    const table = await conn.createEmptyTable('t', schema);
    const rows = [
      { id: 'a', n: 1, note: 'first', tags: ['x', 'y'], vec_3: new Float32Array([0.5, -1, 2]), vec_2: null },
      { id: 'b', n: 2, note: null, tags: [], vec_3: null, vec_2: [0.25, 4] },
      { id: 'c', n: 3, tags: ['z'], vec_3: new Float32Array([1, 2, 3]) },
    ];
    await table.add(rowsToTable(await table.schema(), rows));
    const back = (await table.query().toArray()).sort((p, q) => String(p.id).localeCompare(String(q.id)));
    const plain = back.map((r) => ({
      id: r.id,
      n: r.n,
      note: r.note,
      tags: r.tags ? [...r.tags] : r.tags,
      vec_3: r.vec_3 ? [...r.vec_3] : r.vec_3,
      vec_2: r.vec_2 ? [...r.vec_2] : r.vec_2,
    }));
    expect(plain).toEqual([
      { id: 'a', n: 1, note: 'first', tags: ['x', 'y'], vec_3: [0.5, -1, 2], vec_2: null },
      { id: 'b', n: 2, note: null, tags: [], vec_3: null, vec_2: [0.25, 4] },
      { id: 'c', n: 3, note: null, tags: ['z'], vec_3: [1, 2, 3], vec_2: null },
    ]);
    table.close();
    conn.close();
  });

  it('cuts long inputs into record batches and keeps every row', () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      id: `r${i}`,
      n: i,
      tags: [],
      vec_3: [i, i + 1, i + 2],
      vec_2: null,
    }));
    const built = rowsToTable(schema, rows);
    expect(built.numRows).toBe(2500);
    expect(built.batches.length).toBe(3);
    expect(built.getChild('n')!.get(2499)).toBe(2499);
    expect([...built.getChild('vec_3')!.get(1234)!]).toEqual([1234, 1235, 1236]);
  });

  it('refuses a vector of the wrong length instead of writing a shifted one', () => {
    let error: unknown;
    try {
      rowsToTable(schema, [{ id: 'a', n: 1, tags: [], vec_3: [1, 2], vec_2: null }]);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(String((error as Error).message)).toMatch(/2 dimensions does not fit the column of 3/);
  });
});
