/**
 * The memory graph's port (docs/graph.md) on LanceDB: five tables — entities, their resolution keys (one row per
 * key), observations, relations and the log — sharing the connection, write lock and upkeep of the other ports of the
 * package. Every query names the space; user text reaches predicates only as quoted literals (sql.ts). Queries narrow
 * the rows (space, ids, keys, words, page); which of them a view sees is decided on the records by `graphVisible` /
 * `graphHolds` / `observationHolds` of the core, the one statement of those rules.
 */
import type { Table } from '@lancedb/lancedb';
import {
  type ByIds,
  type EntityRecord,
  type GraphStore,
  type GraphView,
  graphHolds,
  graphVisible,
  observationHolds,
  onlyOn,
  type RelationRecord,
} from '@mem/core/adapter';
import { ADAPTER, LanceDatabase, PortRunner, type TableSpec } from './database.js';
import { cascade } from './graph-forget.js';
import {
  entitySchema,
  GRAPH_SCHEMA,
  graphLogSchema,
  keySchema,
  observationSchema,
  relationSchema,
  rowToEntity,
  rowToLog,
  rowToObservation,
  rowToRelation,
} from './graph-schema.js';
import {
  allTables,
  byId,
  byList,
  byTime,
  commitWrites,
  type GraphTables,
  ids,
  inSpace,
  listLiteral,
  oldestFirst,
  type PendingWrite,
  pageById,
  SCALAR_INDEXES,
  unique,
} from './graph-tables.js';
import { GroupCommit } from './group-commit.js';
import { optimizeTables } from './optimize-tables.js';
import { backgroundSettings, indexSettings, type LanceOptimizeReport, type LanceStoreOptions } from './options.js';
import { listOf, type Row } from './schema.js';
import { rows, sqlIn, sqlString, wellFormed } from './sql.js';
import { ManagedTable } from './upkeep.js';

/** What the Lance graph store adds to its port. */
export interface LanceGraphStore extends GraphStore {
  /** Open the database and create the tables now (every method does it on first use). */
  ready(): Promise<void>;
  /** Maintenance of the five tables: compaction, index refresh, old versions removed. */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<LanceOptimizeReport>;
  /** Wait for calls in flight and give the connection back (closed with the last port using it). */
  close(): Promise<void>;
}

function graphRunner(db: LanceDatabase, options: LanceStoreOptions): PortRunner<GraphTables> {
  const settings = indexSettings(options);
  const names = {
    entities: options.tableNames?.graphEntities ?? 'graph_entities',
    keys: options.tableNames?.graphKeys ?? 'graph_keys',
    observations: options.tableNames?.graphObservations ?? 'graph_observations',
    relations: options.tableNames?.graphRelations ?? 'graph_relations',
    log: options.tableNames?.graphLog ?? 'graph_log',
  };
  const spec = (key: keyof GraphTables, schema: TableSpec['schema'], option: string): TableSpec => ({
    name: names[key],
    schema,
    kind: 'graph',
    option: `tableNames.${option}`,
    required: schema.fields.map((f) => f.name),
    version: GRAPH_SCHEMA,
  });
  return new PortRunner<GraphTables>(
    db,
    async () => {
      const [entities, keys, observations, relations, log] = await db.openTables([
        spec('entities', entitySchema(), 'graphEntities'),
        spec('keys', keySchema(), 'graphKeys'),
        spec('observations', observationSchema(), 'graphObservations'),
        spec('relations', relationSchema(), 'graphRelations'),
        spec('log', graphLogSchema(), 'graphLog'),
      ]);
      const managed = (key: keyof GraphTables, table: Table) =>
        new ManagedTable(names[key], table, settings, false, SCALAR_INDEXES[key]);
      const t: GraphTables = {
        entities: managed('entities', entities!),
        keys: managed('keys', keys!),
        observations: managed('observations', observations!),
        relations: managed('relations', relations!),
        log: managed('log', log!),
      };
      for (const m of allTables(t)) await m.refreshIndexInfo();
      // The scalar indexes exist from the first open (an empty table gets them too), created under the lock.
      if (allTables(t).some((m) => !m.scalarReady)) {
        await db.exclusive(async () => {
          for (const m of allTables(t)) await m.ensureScalarIndexes();
        });
      }
      return t;
    },
    {
      auto: settings.auto,
      logger: options.logger,
      delayMs: settings.upkeepDelayMs,
      tables: allTables,
      background: backgroundSettings(options),
    },
  );
}

/** The graph store on a database shared with other ports (see `createLanceStores`). */
export function createGraphStore(db: LanceDatabase, options: LanceStoreOptions): LanceGraphStore {
  const runner = graphRunner(db, options);
  const read = runner.read.bind(runner);
  /** Writes arriving while the lock is busy commit together: one merge-insert per table for all of them. */
  const writes = new GroupCommit<GraphTables, PendingWrite>(
    (run) => runner.write('writing the graph', run, allTables),
    async (t, items) => {
      await commitWrites(t, items);
      return items.map(() => undefined);
    },
  );
  /** Whether `view` sees a record: the core's rules, applied to the rows a query returned. */
  const visible =
    <R extends EntityRecord | RelationRecord>(view: GraphView) =>
    (r: R) =>
      graphVisible(r, view) && graphHolds(r, view);

  return {
    name: ADAPTER,
    write(space, batch) {
      const size =
        (batch.entities?.length ?? 0) +
        (batch.observations?.length ?? 0) +
        (batch.relations?.length ?? 0) +
        (batch.log?.length ?? 0);
      if (size === 0 || runner.isClosed) return read('writing the graph', async () => undefined);
      return writes.submit({ space, batch });
    },
    entities(space, query, view) {
      return read('reading the graph', async (t) => {
        const table = t.entities.table;
        const seen = visible<EntityRecord>(view);
        if ('ids' in query) {
          return (await byList(table, space, (b) => sqlIn('id', b), query.ids)).map(rowToEntity).filter(seen);
        }
        if ('keys' in query) {
          // The key rows name the entities (one indexed lookup per slice of keys); an entity row holds its keys, so
          // one whose key rows are not current (a crash between the two commits of a write) is left out.
          const asked = new Set(query.keys);
          const owners = await byList(t.keys.table, space, (b) => sqlIn('key', b), query.keys, ['entity_id']);
          const found = await byList(
            table,
            space,
            (b) => sqlIn('id', b),
            owners.map((r) => String(r.entity_id)),
          );
          return found.map(rowToEntity).filter((e) => e.keys.some((k) => asked.has(k)) && seen(e));
        }
        if ('words' in query) {
          const words = unique(query.words);
          if (words.length === 0) return [];
          // strpos: a plain substring test, so `%`, `_` and `\` in a word are literal (no LIKE pattern); a scan of
          // the space's search text, cut by id order.
          const match = words.map((w) => `strpos(search_text, ${sqlString(w)}) > 0`).join(' OR ');
          return pageById(table, `${inSpace(space)} AND (${match})`, rowToEntity, seen, query.limit);
        }
        const after = query.after === null ? '' : ` AND id > ${sqlString(query.after)}`;
        return pageById(table, `${inSpace(space)}${after}`, rowToEntity, seen, query.limit);
      });
    },
    keys(space, prefixes, limit) {
      return read('reading resolution keys', async (t) => {
        const n = Math.floor(limit);
        if (!(n > 0)) return [];
        const found: { key: string; entityId: string }[] = [];
        for (const x of prefixes) {
          // A sorted range of the key index, then the prefix itself, compared by characters (`left`, never LIKE or
          // `starts_with`: `%`, `_` and `\` are plain characters). The range ends below the prefix followed by
          // U+10FFFF, a noncharacter no resolution key holds.
          const where = [
            inSpace(space),
            `key >= ${sqlString(x)}`,
            `key < ${sqlString(`${x}\u{10FFFF}`)}`,
            `left(key, ${[...wellFormed(x)].length}) = ${sqlString(x)}`,
          ].join(' AND ');
          let q = t.keys.table
            .query()
            .where(where)
            .select(['key', 'entity_id'])
            .orderBy([
              { columnName: 'key', ascending: true },
              { columnName: 'entity_id', ascending: true },
            ]);
          if (Number.isFinite(n)) q = q.limit(n);
          const page = (await q.toArray()) as Row[];
          for (const r of page) found.push({ key: String(r.key), entityId: String(r.entity_id) });
        }
        return found;
      });
    },
    observations(space, of, view) {
      const column = Array.isArray(of) ? 'entity_id' : 'id';
      const list = Array.isArray(of) ? of : (of as ByIds).ids;
      return read('reading observations', async (t) =>
        (await byList(t.observations.table, space, (b) => sqlIn(column, b), list))
          .map(rowToObservation)
          .filter((o) => observationHolds(o, view))
          .sort(oldestFirst),
      );
    },
    relations(space, query, view) {
      return read('reading relations', async (t) => {
        const table = t.relations.table;
        const seen = visible<RelationRecord>(view);
        if ('entityIds' in query) {
          // One indexed query per end (slices of the ids), merged by id.
          const found = new Map<string, Row>();
          for (const column of ['from_id', 'to_id'] as const) {
            if (query.direction === (column === 'from_id' ? 'in' : 'out')) continue;
            for (const r of await byList(table, space, (b) => sqlIn(column, b), query.entityIds))
              found.set(String(r.id), r);
          }
          return [...found.values()].map(rowToRelation).filter(seen);
        }
        if ('ids' in query)
          return (await byList(table, space, (b) => sqlIn('id', b), query.ids)).map(rowToRelation).filter(seen);
        const after = query.after === null ? '' : ` AND id > ${sqlString(query.after)}`;
        return pageById(table, `${inSpace(space)}${after}`, rowToRelation, seen, query.limit);
      });
    },
    log(space, of) {
      const column = Array.isArray(of) ? 'record_id' : 'id';
      const list = Array.isArray(of) ? of : (of as ByIds).ids;
      return read('reading the graph log', async (t) =>
        (await byList(t.log.table, space, (b) => sqlIn(column, b), list))
          .map(rowToLog)
          .sort((a, b) => byTime(a.at, b.at) || byId(a, b)),
      );
    },
    deleteOwner(space, owner) {
      return runner.write(
        'forgetting graph records',
        async (t) => {
          const where =
            'agentId' in owner
              ? `${inSpace(space)} AND agent_id = ${sqlString(owner.agentId)}`
              : `${inSpace(space)} AND user_id = ${sqlString(owner.userId)}`;
          const owned = async (m: ManagedTable) => ids(await rows(m.table, where, undefined, ['id']));
          return cascade(
            t,
            space,
            await owned(t.entities),
            await owned(t.relations),
            // Observations carry no user: forgetting a user removes those on its entities (the cascade).
            'agentId' in owner ? await owned(t.observations) : [],
          );
        },
        allTables,
      );
    },
    deleteByEvidence(space, messageIds) {
      const gone = new Set(messageIds);
      if (gone.size === 0) {
        return read('forgetting graph records', async () => ({ entities: 0, observations: 0, relations: 0, log: 0 }));
      }
      return runner.write(
        'forgetting graph records',
        async (t) => {
          // Narrowed in the query to rows citing one of the messages, then `onlyOn` keeps those resting on them alone.
          const resting = async (m: ManagedTable) => {
            const cited = await byList(
              m.table,
              space,
              (b) => `array_has_any(evidence, ${listLiteral(b)})`,
              [...gone],
              ['id', 'evidence'],
            );
            const evidence = new Map(cited.map((r) => [String(r.id), listOf(r.evidence).map(String)]));
            return [...evidence].filter(([, e]) => onlyOn(e, gone)).map(([id]) => id);
          };
          return cascade(
            t,
            space,
            await resting(t.entities),
            await resting(t.relations),
            await resting(t.observations),
          );
        },
        allTables,
      );
    },
    async ready(): Promise<void> {
      await read(`opening ${db.uri}`, async () => undefined);
    },
    optimize(opts: { cleanupOlderThan?: Date } = {}): Promise<LanceOptimizeReport> {
      return runner.write('optimizing the graph', (t) =>
        optimizeTables(t.entities, [t.keys, t.observations, t.relations, t.log], opts),
      );
    },
    close(): Promise<void> {
      return runner.close();
    },
  };
}

/** A `GraphStore` on LanceDB with its own connection (see `createLanceStores` to share one). */
export function createLanceGraphStore(options: LanceStoreOptions): LanceGraphStore {
  return createGraphStore(new LanceDatabase(options), options);
}
