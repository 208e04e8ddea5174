export {
  createPostgresEpisodeStore,
  createPostgresProcedureStore,
  type PostgresEpisodeStore,
  type PostgresProcedureStore,
} from './candidate-stores.js';
export {
  ADAPTER,
  type ClientOptions,
  createClient,
  describeTarget,
  quoteSchema,
  redactUrl,
  type Sql,
  type TransactionSql,
  toStoreError,
} from './connection.js';
export {
  createPostgresStore,
  type HnswOptions,
  type PostgresKnowledgeStore,
  type PostgresStoreOptions,
} from './knowledge-store.js';
export {
  appliedMigrations,
  ensureVectorExtension,
  episodicMigrations,
  knowledgeMigrations,
  type Migration,
  type MigrationContext,
  type MigrationResult,
  migrations,
  notebookMigrations,
  type PortMigrations,
  runMigrations,
  structuredMigrations,
  transcriptMigrations,
} from './migrations.js';
export { createPostgresNotebookStore, type PostgresNotebookStore } from './notebook-store.js';
export type { PostgresHandle, PostgresPortOptions } from './runtime.js';
export { createPostgresStores, type PostgresStores, type PostgresStoresOptions } from './stores.js';
export { createPostgresStructuredStores, type PostgresStructuredStores } from './structured-stores.js';
export {
  createPostgresTranscriptStore,
  POSTGRES_COMPACTION_STEPS,
  type PostgresCompactionStep,
  type PostgresTranscriptStore,
  type PostgresTranscriptStoreOptions,
} from './transcript-store.js';
export { parseVector, vectorLiteral } from './vectors.js';
