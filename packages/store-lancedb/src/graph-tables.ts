/**
 * The graph's tables and what the graph store's reads and writes share: queries by slices of id lists, pages in id
 * order, upserts (one merge-insert per table) and the group commit of writes with its undo.
 */
import type { Table } from '@lancedb/lancedb';
import type { GraphWrite, ObservationRecord } from '@mem/core/adapter';
import { rowsToTable } from './arrow-rows.js';
import { entityToRow, keyRows, logToRow, observationToRow, relationToRow } from './graph-schema.js';
import { listOf, type Row } from './schema.js';
import { chunked, rows, sqlIn, sqlString } from './sql.js';
import type { ManagedTable, ScalarIndexKind } from './upkeep.js';

/** The graph's tables, opened once per runner. */
export interface GraphTables {
  entities: ManagedTable;
  keys: ManagedTable;
  observations: ManagedTable;
  relations: ManagedTable;
  log: ManagedTable;
}

export const allTables = (t: GraphTables): ManagedTable[] => [t.entities, t.keys, t.observations, t.relations, t.log];

/**
 * Scalar indexes: ids (upserts, reads by id), the columns read by lists of ids (observations of entities, relations
 * by either end, log lines of records, the keys of entities), the keys (lookups and sorted prefix ranges), and the
 * space every query tests.
 */
export const SCALAR_INDEXES: Record<keyof GraphTables, Readonly<Record<string, ScalarIndexKind>>> = {
  entities: { id: 'btree', space: 'bitmap' },
  keys: { key: 'btree', entity_id: 'btree', space: 'bitmap' },
  observations: { id: 'btree', space: 'bitmap', entity_id: 'btree' },
  relations: { id: 'btree', space: 'bitmap', from_id: 'btree', to_id: 'btree' },
  log: { space: 'bitmap', record_id: 'btree' },
};

export const inSpace = (space: string) => `space = ${sqlString(space)}`;
/** An Arrow list literal of quoted strings (`['a', 'b']`), for `array_has_any`. */
export const listLiteral = (values: readonly string[]) => `[${values.map(sqlString).join(', ')}]`;
export const unique = (values: Iterable<string>): string[] => [...new Set(values)];
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const oldestFirst = (a: ObservationRecord, b: ObservationRecord) =>
  byTime(a.recordedAt, b.recordedAt) || byId(a, b);

/** A row read back, its Arrow lists made plain arrays (so it can be written again as it was). */
const plain = (row: Row): Row =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' && typeof (v as { toArray?: unknown }).toArray === 'function'
        ? listOf(v).map(String)
        : v,
    ]),
  );

/**
 * Rows of the space whose `predicate` holds for some slice of `values` (de-duplicated, in `IN` lists of at most 500):
 * one indexed query per slice, never the whole table. Optionally only `columns`.
 */
export async function byList(
  table: Table,
  space: string,
  predicate: (batch: string[]) => string,
  values: readonly string[],
  columns?: string[],
): Promise<Row[]> {
  const found: Row[] = [];
  for (const batch of chunked(unique(values))) {
    found.push(...(await rows(table, `${inSpace(space)} AND ${predicate(batch)}`, undefined, columns)));
  }
  return found;
}

/**
 * The first `limit` records by id that `where` matches and `keep` accepts: pages of rows in id order (sorted and cut
 * by LanceDB), each after the last id of the one before, until enough are kept or the rows run out.
 */
export async function pageById<R>(
  table: Table,
  where: string,
  from: (row: Row) => R,
  keep: (record: R) => boolean,
  limit: number,
): Promise<R[]> {
  const n = Math.floor(limit);
  if (!(n > 0)) return [];
  const size = Math.min(Math.max(2 * n, 100), 2000);
  const kept: R[] = [];
  let after: string | null = null;
  for (;;) {
    const found = (await table
      .query()
      .where(after === null ? where : `${where} AND id > ${sqlString(after)}`)
      .orderBy([{ columnName: 'id', ascending: true }])
      .limit(size)
      .toArray()) as Row[];
    for (const row of found) {
      const record = from(row);
      if (!keep(record)) continue;
      kept.push(record);
      if (kept.length >= n) return kept;
    }
    if (found.length < size) return kept;
    after = String(found.at(-1)!.id);
  }
}

/** One merge-insert on (space, id): one commit that replaces the rows of taken ids and appends the others. */
export async function upsert(table: Table, data: readonly Row[]): Promise<void> {
  if (data.length === 0) return;
  await table
    .mergeInsert(['space', 'id'])
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute(rowsToTable(await table.schema(), data));
}

/** The values of `column` of rows, by their space. */
function bySpace(data: readonly Row[], column: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of data) out.set(String(r.space), [...(out.get(String(r.space)) ?? []), String(r[column])]);
  return out;
}

/** Where the rows are whose `column` is one of `values` of their space: `(space = … AND column IN (…)) OR …`. */
function inSpaces(values: Map<string, string[]>, column: string): string {
  const parts: string[] = [];
  for (const [space, list] of values) {
    for (const batch of chunked(unique(list))) parts.push(`(${inSpace(space)} AND ${sqlIn(column, batch)})`);
  }
  return parts.join(' OR ');
}

/** An undo of one step of a write. */
type Undo = () => Promise<void>;

/** The upsert of `data`, and its undo: the rows it added deleted, the rows it replaced written back as they were. */
async function upsertStep(table: Table, data: readonly Row[]): Promise<Undo> {
  const taken = bySpace(data, 'id');
  const before = (await rows(table, inSpaces(taken, 'id'))).map(plain);
  await upsert(table, data);
  return async () => {
    const had = new Set(before.map((r) => `${String(r.space)}\u0000${String(r.id)}`));
    const added = bySpace(
      data.filter((r) => !had.has(`${String(r.space)}\u0000${String(r.id)}`)),
      'id',
    );
    if (added.size > 0) await table.delete(inSpaces(added, 'id'));
    await upsert(table, before);
  };
}

/**
 * Make `data` the key rows of the entities `where` names, in one commit: a merge-insert on (space, entity, key) that
 * appends the new keys and deletes the ones those entities no longer have.
 */
async function setKeys(table: Table, where: string, data: readonly Row[]): Promise<void> {
  if (data.length === 0) {
    await table.delete(where);
    return;
  }
  await table
    .mergeInsert(['space', 'entity_id', 'key'])
    .whenNotMatchedInsertAll()
    .whenNotMatchedBySourceDelete({ where })
    .execute(rowsToTable(await table.schema(), data));
}

/** The key rows of `entities` replaced by theirs, and its undo: their key rows as they were. */
async function keysStep(table: Table, entities: readonly Row[]): Promise<Undo> {
  const where = inSpaces(bySpace(entities, 'id'), 'entity_id');
  const before = (await rows(table, where)).map(plain);
  await setKeys(table, where, entities.flatMap(keyRows));
  return () => setKeys(table, where, before);
}

/** A write waiting for its commit. */
export interface PendingWrite {
  space: string;
  batch: GraphWrite;
}

/**
 * The rows of several writes for one table: each record under its write's space, a later write of a (space, id)
 * replacing an earlier one (a merge-insert refuses a source with one key twice, and upserts in order mean the last wins).
 */
function lastById<R extends { id: string }>(
  writes: readonly PendingWrite[],
  pick: (batch: GraphWrite) => readonly R[] | undefined,
  toRow: (space: string, record: R) => Row,
): Row[] {
  const byKey = new Map<string, Row>();
  for (const { space, batch } of writes) {
    for (const record of pick(batch) ?? []) {
      const key = `${space}\u0000${record.id}`;
      byKey.delete(key);
      byKey.set(key, toRow(space, record));
    }
  }
  return [...byKey.values()];
}

/**
 * Under the lock: the writes of one group commit. No transactions across tables: one commit per table — observations,
 * relations, the entities' keys, the entities, then the log —, so a crash in between leaves at worst observations,
 * relations or keys of an entity whose row is not written (or updated) yet, which no read reaches through a key (a
 * key lookup returns only entities that hold the key). A failed step undoes the steps before it (their rows as they
 * were), so a write that fails leaves nothing.
 */
export async function commitWrites(t: GraphTables, writes: readonly PendingWrite[]): Promise<void> {
  const observations = lastById(writes, (b) => b.observations, observationToRow);
  const relations = lastById(writes, (b) => b.relations, relationToRow);
  const entities = lastById(writes, (b) => b.entities, entityToRow);
  const log = writes.flatMap(({ space, batch }) => (batch.log ?? []).map((l) => logToRow(space, l)));
  const undo: Undo[] = [];
  try {
    if (observations.length > 0) undo.unshift(await upsertStep(t.observations.table, observations));
    if (relations.length > 0) undo.unshift(await upsertStep(t.relations.table, relations));
    if (entities.length > 0) {
      undo.unshift(await keysStep(t.keys.table, entities));
      undo.unshift(await upsertStep(t.entities.table, entities));
    }
    if (log.length > 0) await t.log.table.add(rowsToTable(await t.log.table.schema(), log));
  } catch (error) {
    for (const step of undo) await step().catch(() => undefined);
    throw error;
  }
}

export const ids = (found: readonly Row[]) => found.map((r) => String(r.id));
