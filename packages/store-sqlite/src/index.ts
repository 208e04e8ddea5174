export {
  createSqliteEpisodeStore,
  createSqliteProcedureStore,
  type SqliteEpisodeStore,
  type SqliteProcedureStore,
} from './candidate-stores.js';
export type {
  SqliteConnectionOptions,
  SqliteHandle,
  SqliteOpenOptions,
  SqliteSource,
} from './connection.js';
export { isBusyError, loadVectorExtension, type OpenDatabaseOptions, openDatabase, withBusyRetry } from './database.js';
export { sqliteIndexOptionsFromJson } from './index-options.js';
export { createSqliteStore, type SqliteKnowledgeStore, type SqliteStoreOptions } from './knowledge-store.js';
export {
  CONVERSATION_SCHEMA_VERSION,
  GRAPH_SCHEMA_VERSION,
  type Migration,
  type MigrationResult,
  migrations,
  runMigrations,
  STRUCTURED_SCHEMA_VERSION,
  schemaVersion,
} from './migrations.js';
export { createSqliteNotebookStore, type SqliteNotebookStore } from './notebook-store.js';
export { createSqliteStores, type SqliteStores, type SqliteStoresOptions } from './stores.js';
export { createSqliteStructuredStores, type SqliteStructuredStores } from './structured-stores.js';
export {
  createSqliteTranscriptStore,
  SQLITE_COMPACTION_STEPS,
  type SqliteCompactionStep,
  type SqliteTranscriptStore,
  type SqliteTranscriptStoreOptions,
} from './transcript-store.js';
