import type { TestProject } from 'vitest/node';
import { type PgliteServer, startPgliteServer } from './pglite-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server the tests use. */
    postgresUrl: string;
    /** 'server' when MEM_TEST_POSTGRES_URL points at a real server, 'pglite' for the in-process fallback. */
    postgresBackend: 'server' | 'pglite';
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
    console.log('[store-postgres] tests use the server at MEM_TEST_POSTGRES_URL');
    return async () => {};
  }
  const started = Date.now();
  pglite = await startPgliteServer();
  project.provide('postgresUrl', pglite.url);
  project.provide('postgresBackend', 'pglite');
  console.log(
    `[store-postgres] MEM_TEST_POSTGRES_URL is not set: tests use PGlite with pgvector on ${pglite.url} (started in ${Date.now() - started} ms)`,
  );
  return async () => {
    await pglite?.stop();
    pglite = undefined;
  };
}
