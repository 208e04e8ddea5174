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
  knowledgeMigrations,
  type Migration,
  type MigrationContext,
  type MigrationResult,
  migrations,
  type PortMigrations,
  runMigrations,
} from './migrations.js';
export { parseVector, vectorLiteral } from './vectors.js';
