/**
 * Forget on the graph's tables (`deleteOwner`, `deleteByEvidence`): the cascade of the SQL stores — entities with their
 * observations and the relations touching them, relations, observations, their log lines; the search text of entities
 * that lose observations computed again — deleting so that no copy stays in the files (docs/safety.md).
 */
import type { Table } from '@lancedb/lancedb';
import { entitySearchText, type GraphDeleted, type ObservationRecord } from '@mem/core/adapter';
import { eraseRows, replaceRows } from './erase-rows.js';
import { entityToRow, rowToEntity, rowToObservation } from './graph-schema.js';
import { byList, type GraphTables, ids, inSpace, oldestFirst, unique, upsert } from './graph-tables.js';
import { optimizeTables } from './optimize-tables.js';
import { chunked, sqlIn } from './sql.js';

/** Delete the rows of the space whose `column` is one of `values`, leaving no copy in the files; the count deleted. */
async function eraseWhere(table: Table, space: string, column: string, values: readonly string[]): Promise<number> {
  let deleted = 0;
  for (const batch of chunked(unique(values))) {
    deleted += await eraseRows(table, `${inSpace(space)} AND ${sqlIn(column, batch)}`);
  }
  return deleted;
}

/**
 * Under the lock: the search text of entities that lose observations (`doomed`) computed again from the current
 * observations they keep (`entitySearchText`, as the core writes it), and their old rows left nowhere in the files.
 */
async function refreshSearchText(
  t: GraphTables,
  space: string,
  entityIds: readonly string[],
  doomed: ReadonlySet<string>,
): Promise<void> {
  const table = t.entities.table;
  const entities = (await byList(table, space, (b) => sqlIn('id', b), entityIds)).map(rowToEntity);
  if (entities.length === 0) return;
  const kept = new Map<string, ObservationRecord[]>();
  const observations = await byList(
    t.observations.table,
    space,
    (b) => sqlIn('entity_id', b),
    entities.map((e) => e.id),
  );
  for (const o of observations.map(rowToObservation)) {
    if (o.invalidatedAt !== null || doomed.has(o.id)) continue;
    kept.set(o.entityId, [...(kept.get(o.entityId) ?? []), o]);
  }
  for (const batch of chunked(entities)) {
    const data = batch.map((e) => {
      const texts = (kept.get(e.id) ?? []).sort(oldestFirst).map((o) => o.text);
      return entityToRow(space, { ...e, searchText: entitySearchText(e, texts) });
    });
    const where = `${inSpace(space)} AND ${sqlIn(
      'id',
      batch.map((e) => e.id),
    )}`;
    await replaceRows(table, where, () => upsert(table, data));
  }
}

/**
 * Under the lock: delete entities (with their observations and every relation touching them), relations and
 * observations by id, and every log line about them, so that no copy stays in the files; entities of others that lose
 * observations get their search text again. Their new search text is written first, then the log, relations,
 * observations, keys and entities go: a crash in between leaves what a second forget finds again (entities last).
 */
export async function cascade(
  t: GraphTables,
  space: string,
  entities: readonly string[],
  relations: readonly string[],
  observations: readonly string[],
): Promise<GraphDeleted> {
  const deleted: GraphDeleted = { entities: 0, observations: 0, relations: 0, log: 0 };
  if (entities.length + relations.length + observations.length === 0) return deleted;
  const only = ['id'];
  const touching = [
    ...(await byList(t.relations.table, space, (b) => sqlIn('from_id', b), entities, only)),
    ...(await byList(t.relations.table, space, (b) => sqlIn('to_id', b), entities, only)),
  ];
  const allRelations = unique([...relations, ...ids(touching)]);
  const onEntities = await byList(t.observations.table, space, (b) => sqlIn('entity_id', b), entities, only);
  const allObservations = unique([...observations, ...ids(onEntities)]);
  const dropped = new Set(entities);
  const owners = await byList(t.observations.table, space, (b) => sqlIn('id', b), allObservations, ['entity_id']);
  const others = unique(owners.map((r) => String(r.entity_id))).filter((id) => !dropped.has(id));
  await refreshSearchText(t, space, others, new Set(allObservations));
  deleted.log = await eraseWhere(t.log.table, space, 'record_id', [...entities, ...allRelations, ...allObservations]);
  deleted.relations = await eraseWhere(t.relations.table, space, 'id', allRelations);
  deleted.observations = await eraseWhere(t.observations.table, space, 'id', allObservations);
  await eraseWhere(t.keys.table, space, 'entity_id', entities);
  deleted.entities = await eraseWhere(t.entities.table, space, 'id', entities);
  // Forget leaves no trace: the key index rebuilt without the deleted keys (names and aliases), compaction drops the
  // wholly deleted fragments, cleanup the versions (and index files) that still hold them.
  await t.keys.rebuildScalarIndexes(['key']);
  await optimizeTables(t.entities, [t.keys, t.observations, t.relations, t.log], { cleanupOlderThan: new Date() });
  return deleted;
}
