import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, testServer } from './helpers.js';

// Loaded by path at run time, so that this package's typecheck does not compile the CLI.
const CLI_MAIN = join(import.meta.dirname, '..', '..', 'cli', 'src', 'main.ts');
type Io = Record<string, unknown>;
const { run } = (await import(CLI_MAIN)) as { run: (argv: string[], io: Io) => Promise<number> };

const dir = mkdtempSync(join(tmpdir(), 'mem-server-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function mem(args: string[]) {
  let stdout = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: () => true },
    readStdin: async () => '',
    env: { MEM_DB: join(dir, 'cli.db'), MEM_EMBEDDER: 'hashing' },
    cwd: dir,
  };
  expect(await run(args, io)).toBe(0);
  return JSON.parse(stdout);
}

describe('one result shape', () => {
  it('POST /v1/memories/search returns exactly the fields of `mem search --json`', async () => {
    const content = 'The release train leaves every second Thursday.';
    await mem(['store', content, '--name', 'Release train', '--tags', 'release', '--json']);
    const cli = (await mem(['search', 'release train Thursday', '--json'])).results[0];
    const server = await testServer();
    try {
      await call(server.url, 'POST', '/v1/memories', { body: { content, name: 'Release train', tags: ['release'] } });
      const http = (
        await call(server.url, 'POST', '/v1/memories/search', { body: { query: 'release train Thursday' } })
      ).body.results[0];
      expect(Object.keys(http)).toEqual(Object.keys(cli));
      // Ids and times differ; the similarity differs in the last float32 digits (sqlite-vec vs the in-memory store).
      const stable = (r: Record<string, unknown>) => ({ ...r, id: 0, chunkId: 0, key: 0, createdAt: 0, similarity: 0 });
      expect(stable(http)).toEqual(stable(cli));
      expect(http.similarity).toBeCloseTo(cli.similarity, 5);
    } finally {
      await server.close();
    }
  });
});
