import { MemError } from '@mem/core';
import { ADAPTER } from './database.js';
import { arrow, type Row } from './schema.js';

type Schema = InstanceType<typeof arrow.Schema>;
type AnyData = ReturnType<typeof arrow.makeData>;

/** Rows per record batch (Arrow's builders cut longer inputs into several chunks). */
const BATCH_ROWS = 1000;

const isFloat32 = (type: InstanceType<typeof arrow.DataType>) =>
  arrow.DataType.isFloat(type) && type.precision === arrow.Precision.SINGLE;

/**
 * A fixed-size list of floats (a vector column) from one value per row (a vector of the column's dimension, or
 * null): every vector copied into one Float32Array. LanceDB's own conversion pushes each number through a builder,
 * which costs more main-thread time per append than the rest of the write (measured with `--cpu-prof` on
 * `mem serve`).
 */
function vectorData(type: InstanceType<typeof arrow.FixedSizeList>, values: readonly unknown[]): AnyData {
  const dim = type.listSize;
  const n = values.length;
  const floats = new Float32Array(n * dim);
  const valid = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (const [i, v] of values.entries()) {
    if (v === null || v === undefined) {
      nullCount += 1;
      continue;
    }
    const vector = v as ArrayLike<number>;
    if (vector.length !== dim) {
      throw new MemError(
        'INVALID_INPUT',
        `${ADAPTER}: a vector of ${vector.length} dimensions does not fit the column of ${dim}; embed with one model per column.`,
      );
    }
    floats.set(vector, i * dim);
    valid[i >> 3]! |= 1 << (i & 7);
  }
  const child = arrow.makeData({
    type: type.children[0]!.type as InstanceType<typeof arrow.Float32>,
    length: n * dim,
    data: floats,
  });
  return arrow.makeData({
    type,
    length: n,
    nullCount,
    ...(nullCount > 0 ? { nullBitmap: valid } : {}),
    child,
  } as Parameters<typeof arrow.makeData>[0]);
}

/**
 * `rows` as an Arrow table of exactly `schema` (the table's own, so LanceDB has nothing left to convert): a column
 * missing from a row is null. Vector columns are built directly from the rows' vectors (see `vectorData`), every
 * other column with Arrow's builder for its type.
 */
export function rowsToTable(schema: Schema, rows: readonly Row[]): InstanceType<typeof arrow.Table> {
  const batches: InstanceType<typeof arrow.RecordBatch>[] = [];
  for (let at = 0; at < rows.length; at += BATCH_ROWS) {
    const slice = rows.slice(at, at + BATCH_ROWS);
    const children = schema.fields.map((field) => {
      const values = slice.map((r) => r[field.name] ?? null);
      if (arrow.DataType.isFixedSizeList(field.type) && isFloat32(field.type.children[0]!.type)) {
        return vectorData(field.type, values);
      }
      const [data, ...more] = arrow.vectorFromArray(values, field.type).data;
      if (!data || more.length > 0)
        throw new MemError('INTERNAL', `${ADAPTER}: column ${field.name} did not build as one chunk.`);
      return data;
    });
    const struct = arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: slice.length,
      nullCount: 0,
      children,
    });
    batches.push(new arrow.RecordBatch(schema, struct));
  }
  return new arrow.Table(schema, batches);
}
