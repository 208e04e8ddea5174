import { type CompactionStepHook, type StoreBundleCapabilities, storeBundle } from '@mem/core/adapter';
import { createSqliteStore, type SqliteKnowledgeStore, type SqliteStoreOptions } from './knowledge-store.js';
import type { MigrationResult } from './migrations.js';
import { createSqliteNotebookStore, type SqliteNotebookStore } from './notebook-store.js';
import { createSqliteStructuredStores, type SqliteStructuredStores } from './structured-stores.js';
import { createSqliteTranscriptStore, type SqliteTranscriptStore } from './transcript-store.js';

export interface SqliteStoresOptions extends SqliteStoreOptions {
  /** Called before each compaction step of the transcript store (`SQLITE_COMPACTION_STEPS`; tests). */
  onCompactionStep?: CompactionStepHook;
}

/** Every port of the package on one SQLite file and one connection (see `createSqliteStores`). */
export interface SqliteStores {
  knowledge: SqliteKnowledgeStore;
  transcripts: SqliteTranscriptStore;
  notebooks: SqliteNotebookStore;
  structured: SqliteStructuredStores;
  /** What the ports can do, read once when the bundle was built. */
  readonly capabilities: StoreBundleCapabilities;
  /** The better-sqlite3 connection every port uses (the knowledge store's). */
  readonly db: SqliteKnowledgeStore['db'];
  /** Erases deleted rows from the file's WAL (`forget` runs it); undefined for an in-memory database. */
  readonly eraser: SqliteKnowledgeStore['eraser'];
  /** Apply the pending migrations of the file (every port family shares one list). */
  migrate(): Promise<MigrationResult>;
  /**
   * Close every port (each reports STORE_UNAVAILABLE afterwards), the knowledge store last, which closes the
   * connection. Idempotent: later and concurrent calls wait for the first.
   */
  close(): Promise<void>;
}

/**
 * Every port of @mem/store-sqlite on one file and one connection: the knowledge store opens the file (`path`, with
 * its options, migrating it unless `autoMigrate: false`), and the transcripts, notebooks and ten structured ports
 * share its connection.
 */
export function createSqliteStores(options: SqliteStoresOptions): SqliteStores {
  const { onCompactionStep, ...knowledgeOptions } = options;
  const knowledge = createSqliteStore(knowledgeOptions);
  const shared = {
    db: knowledge.db,
    ...(options.autoMigrate === undefined ? {} : { autoMigrate: options.autoMigrate }),
    ...(options.vectorExtension === undefined ? {} : { vectorExtension: options.vectorExtension }),
  };
  try {
    const transcripts = createSqliteTranscriptStore({
      ...shared,
      ...(onCompactionStep ? { onCompactionStep } : {}),
    });
    const notebooks = createSqliteNotebookStore(shared);
    const structured = createSqliteStructuredStores(shared);
    return storeBundle({
      knowledge,
      transcripts,
      notebooks,
      structured,
      db: knowledge.db,
      eraser: knowledge.eraser,
      migrate: () => knowledge.migrate(),
    });
  } catch (error) {
    void knowledge.close();
    throw error;
  }
}
