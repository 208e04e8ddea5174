import { MemError } from '@mem/core';
import { type CompactionStepHook, type StoreBundleCapabilities, storeBundle } from '@mem/core/adapter';
import { ADAPTER, exec, type Sql, toStoreError } from './connection.js';
import { createPostgresStore, type PostgresKnowledgeStore, type PostgresStoreOptions } from './knowledge-store.js';
import {
  episodicMigrations,
  type MigrationResult,
  migrations,
  notebookMigrations,
  runMigrations,
  structuredMigrations,
  transcriptMigrations,
} from './migrations.js';
import { notebookStoreOn, type PostgresNotebookStore } from './notebook-store.js';
import { createRuntime, openConnection, type PortRuntime } from './runtime.js';
import { type PostgresStructuredStores, structuredStoresOn } from './structured-stores.js';
import { type PostgresTranscriptStore, transcriptStoreOn } from './transcript-store.js';

export interface PostgresStoresOptions extends PostgresStoreOptions {
  /** Called before each compaction step of the transcript store (tests). */
  onCompactionStep?: CompactionStepHook;
}

/** Every port of the package on one connection and one schema (see `createPostgresStores`). */
export interface PostgresStores {
  knowledge: PostgresKnowledgeStore;
  transcripts: PostgresTranscriptStore;
  notebooks: PostgresNotebookStore;
  structured: PostgresStructuredStores;
  /** What the ports can do, read once when the bundle was built. */
  readonly capabilities: StoreBundleCapabilities;
  /** The postgres.js client every port uses. */
  readonly sql: Sql;
  /** The schema holding the tables (unquoted). */
  readonly schema: string;
  /** Erases deleted rows from the server's files (`forget` runs it; see `PostgresHandle.eraser`). */
  readonly eraser: PostgresKnowledgeStore['eraser'];
  /** Apply the pending migrations of every port family, in one transaction. */
  migrate(): Promise<MigrationResult>;
  /**
   * Close every port (each reports STORE_UNAVAILABLE afterwards), then end the client when it was created from
   * `url`. Idempotent: later and concurrent calls wait for the first. Closing one port alone leaves the others and
   * the client open.
   */
  close(): Promise<void>;
}

/**
 * Every port of @mem/store-postgres on one postgres.js client and one schema: the knowledge store, transcripts,
 * notebooks and the ten structured ports (messages … tool events, episodes, procedures). `{ url }` creates the pool
 * (ended by `close()`), `{ sql }` shares a client (left open). Connects and, unless `autoMigrate: false`, applies
 * every family's pending migrations in one transaction before it resolves.
 */
export async function createPostgresStores(options: PostgresStoresOptions): Promise<PostgresStores> {
  const conn = openConnection(options);
  const { sql, schema, target } = conn;
  const autoMigrate = options.autoMigrate ?? true;
  const runtimes: PortRuntime[] = [];
  let knowledge: PostgresKnowledgeStore | undefined;
  try {
    await exec(sql, 'SELECT 1');
    if (autoMigrate) await runMigrations(sql, { schema, ports: migrations, target });
    knowledge = await createPostgresStore({
      sql,
      schema,
      autoMigrate,
      ...(options.hnsw === undefined ? {} : { hnsw: options.hnsw }),
    });
    const open = (families: Parameters<typeof createRuntime>[1], label: string) => {
      const rt = createRuntime(conn, families, label, false);
      runtimes.push(rt);
      return rt;
    };
    const transcriptsRt = open([transcriptMigrations], 'transcript store');
    const notebooksRt = open([notebookMigrations], 'notebook store');
    const structuredRt = open([structuredMigrations, episodicMigrations], 'structured stores');
    if (autoMigrate) for (const rt of runtimes) await rt.ready();
    const transcripts = transcriptStoreOn(transcriptsRt, options.onCompactionStep);
    const notebooks = notebookStoreOn(notebooksRt);
    const structured = structuredStoresOn(structuredRt);
    return storeBundle(
      {
        knowledge,
        transcripts,
        notebooks,
        structured,
        sql,
        schema,
        eraser: knowledge.eraser,
        async migrate() {
          if (conn.ended) {
            throw new MemError(
              'STORE_UNAVAILABLE',
              `${ADAPTER}: the stores for ${target} are closed; create new ones.`,
            );
          }
          try {
            // Every port re-checks its schema on its next call (a failed check is not cached).
            return await runMigrations(sql, { schema, ports: migrations, target });
          } catch (error) {
            throw toStoreError(error, 'migrating', target);
          }
        },
      },
      () => conn.end(),
    );
  } catch (error) {
    await knowledge?.close().catch(() => undefined);
    if (conn.owned) await sql.end({ timeout: 1 }).catch(() => undefined);
    throw toStoreError(error, 'opening the stores', target);
  }
}
