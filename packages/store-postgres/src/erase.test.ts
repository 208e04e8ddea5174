import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { adminClient, backend, dropSchema, freshSchema, url } from '../test/helpers.js';
import { postgresEraser } from './erase.js';
import { createPostgresStores } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// What forget's eraser does for a role without the privileges it needs: it erases what it may and says what it may
// not in notes, instead of failing the forget. The forget suite covers a superuser (everything erased).
describe.skipIf(backend !== 'server')('postgres eraser', () => {
  it('waits for a snapshot from before the forget to end (VACUUM FULL would keep what it sees)', async () => {
    const schema = freshSchema('erw');
    const stores = await createPostgresStores({ sql: admin, schema });
    const other = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const reserved = await other.reserve();
      await reserved.unsafe('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await reserved.unsafe(`SELECT count(*) FROM "${schema}".chunks`);
      let done = false;
      const erased = stores.eraser.eraseDeleted().finally(() => {
        done = true;
      });
      // The eraser polls while the snapshot stays; it finishes once the transaction ends.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(done).toBe(false);
      await reserved.unsafe('COMMIT');
      reserved.release();
      expect(await erased).toEqual([]);
    } finally {
      await other.end({ timeout: 5 });
      await stores.close();
      await dropSchema(admin, schema);
    }
  });
});

describe.skipIf(backend !== 'server')('postgres eraser without privileges', () => {
  it('a plain role: its own tables rewritten; the WAL switch, checkpoint and pg_statistic named in notes', async () => {
    const suffix = freshSchema('er').slice(4);
    const role = `mem_role_${suffix}`;
    const schema = `mem_er_${suffix}`;
    const other = freshSchema('ero');
    await admin.unsafe(`CREATE ROLE "${role}" LOGIN PASSWORD 'pw'`);
    const u = new URL(url);
    u.username = role;
    u.password = 'pw';
    const sql = postgres(u.toString(), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`GRANT CREATE ON DATABASE "${u.pathname.slice(1)}" TO "${role}"`);
      // The role's own schema: it owns the tables, so it may VACUUM FULL them.
      const stores = await createPostgresStores({ sql, schema });
      const notes = await stores.eraser.eraseDeleted();
      expect(notes.join('\n')).toMatch(/pg_statistic/);
      expect(notes.join('\n')).toMatch(/pg_switch_wal\(\)/);
      expect(notes.join('\n')).toMatch(/CHECKPOINT/);
      expect(notes.join('\n')).not.toMatch(/does not own/);
      await stores.close();
      // A schema the admin owns: nothing is rewritten, and the note says which tables and why.
      await (await createPostgresStores({ sql: admin, schema: other })).close();
      const foreign = await postgresEraser(sql, other, 'test').eraseDeleted();
      expect(foreign[0]).toMatch(/does not own these tables/);
      expect(foreign[0]).toContain('chunks');
    } finally {
      await sql.end({ timeout: 5 });
      await dropSchema(admin, schema);
      await dropSchema(admin, other);
      await admin.unsafe(`REVOKE CREATE ON DATABASE "${u.pathname.slice(1)}" FROM "${role}"`);
      await admin.unsafe(`DROP ROLE IF EXISTS "${role}"`);
    }
  });
});
