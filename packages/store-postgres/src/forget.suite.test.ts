import { describeForget } from '@mem/testkit';
import { afterAll, expect } from 'vitest';
import { adminClient, dropSchema, freshSchema } from '../test/helpers.js';
import { createPostgresStores } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// Every port on one fresh schema; the raw scan reads every row of every table of the schema as text.
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
      return out.join('\n');
    },
    cleanup: async () => dropSchema(admin, schema),
  };
});
