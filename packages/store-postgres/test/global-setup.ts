import type { TestProject } from 'vitest/node';
import { type PgliteServer, startPgliteServer } from './pglite-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server the tests use. */
    postgresUrl: string;
    /** 'server' when MEM_TEST_POSTGRES_URL points at a real server, 'pglite' for the in-process fallback. */
    postgresBackend: 'server' | 'pglite';
    /**
     * The server's data directory (MEM_TEST_POSTGRES_DATA, which tooling/postgres-start's pg_setup exports), scanned by
     * the forget suite; '' when not given or on PGlite.
     */
    postgresDataDir: string;
  }
}

let pglite: PgliteServer | undefined;

/**
 * Tests run against MEM_TEST_POSTGRES_URL when it is set (CI starts PostgreSQL 15 + pgvector for them).
 * Otherwise start PGlite with pgvector on a loopback port for this run, so a machine without PostgreSQL passes too.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.MEM_TEST_POSTGRES_URL;
  if (given) {
    project.provide('postgresUrl', given);
    project.provide('postgresBackend', 'server');
    project.provide('postgresDataDir', process.env.MEM_TEST_POSTGRES_DATA ?? '');
    console.log('[store-postgres] tests use the server at MEM_TEST_POSTGRES_URL');
    return async () => {};
  }
  const started = Date.now();
  pglite = await startPgliteServer();
  project.provide('postgresUrl', pglite.url);
  project.provide('postgresBackend', 'pglite');
  project.provide('postgresDataDir', '');
  console.log(
    `[store-postgres] MEM_TEST_POSTGRES_URL is not set: tests use PGlite with pgvector on ${pglite.url} (started in ${Date.now() - started} ms)`,
  );
  return async () => {
    await pglite?.stop();
    pglite = undefined;
  };
}
