export { isBusyError, loadVectorExtension, type OpenDatabaseOptions, openDatabase, withBusyRetry } from './database.js';
export { createSqliteStore, type SqliteKnowledgeStore, type SqliteStoreOptions } from './knowledge-store.js';
export { type Migration, type MigrationResult, migrations, runMigrations, schemaVersion } from './migrations.js';
