import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { describeForget, readTreeText } from '@mem/testkit';
import { afterAll, expect, inject } from 'vitest';
import { adminClient, backend, dropSchema, freshSchema } from '../test/helpers.js';
import { createPostgresStores } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

/**
 * The server's data directory (base/, global/, pg_wal/ …) when the tests may read it, else why not: on PGlite, or
 * without MEM_TEST_POSTGRES_DATA (tooling/postgres-start's pg_setup exports it), or when this user cannot read it.
 */
function dataDir(): { dir: string } | { skipped: string } {
  const dir = inject('postgresDataDir');
  if (backend !== 'server') return { skipped: 'the tests run on PGlite, which keeps its data in memory' };
  if (dir === '') return { skipped: 'MEM_TEST_POSTGRES_DATA is not set (pg_setup of tooling/postgres-start sets it)' };
  try {
    accessSync(join(dir, 'base'), constants.R_OK | constants.X_OK);
    accessSync(join(dir, 'pg_wal'), constants.R_OK | constants.X_OK);
  } catch (error) {
    return { skipped: `the data directory ${dir} is not readable here (${(error as Error).message})` };
  }
  return { dir };
}

const data = dataDir();
if ('skipped' in data)
  console.log(`[store-postgres] forget suite: the data-directory scan is skipped: ${data.skipped}.`);

// Every port on one fresh schema; the raw scan reads every row of every table of the schema as text and, on a real
// server, every file of its data directory (heap and index files, pg_wal), while the server runs.
describeForget('postgres', async () => {
  const schema = freshSchema('forget');
  const stores = await createPostgresStores({ sql: admin, schema });
  return {
    knowledge: stores.knowledge,
    structured: stores.structured,
    transcripts: stores.transcripts,
    notebooks: stores.notebooks,
    raw: async () => {
      const tables = await admin<{ name: string }[]>`
        SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = ${schema} AND table_type = 'BASE TABLE'`;
      const out: string[] = [];
      for (const { name } of tables) {
        const rows = await admin.unsafe(`SELECT t::text AS row FROM "${schema}"."${name}" t`);
        for (const r of rows) out.push(String(r.row));
      }
      expect(tables.length).toBeGreaterThan(5);
      if ('dir' in data) out.push(readTreeText(data.dir));
      return out.join('\n');
    },
    cleanup: async () => dropSchema(admin, schema),
  };
});
