/** `MEM_RERANK_URL`: the CLI's searches re-scored by a rerank service on 127.0.0.1 inside the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-rerank-'));
let service: Awaited<ReturnType<typeof startFakeChatServer>>;
let calls = 0;

beforeAll(async () => {
  // A model with a known taste: texts that state a time first.
  service = await startFakeChatServer(
    (request, send) => {
      calls += 1;
      const documents = request.body.documents as string[];
      send(200, {
        results: documents.map((d, index) => ({ index, relevance_score: /\d{1,2}:\d{2}/.test(d) ? 0.9 : 0.1 })),
      });
    },
    { path: '/v1/rerank' },
  );
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mem search with MEM_RERANK_URL', () => {
  it('re-scores the results with the service; bad settings are usage errors', async () => {
    const plain = { MEM_EMBEDDER: 'hashing' };
    await runCli(
      ['store', 'Mobile deploy: mobile deploy checklist, mobile deploy notes.', '--name', 'Checklist'],
      dir,
      plain,
    );
    await runCli(
      [
        'store',
        'The mobile deploy window opens on Tuesday at 10:00 UTC, after the release review.',
        '--name',
        'Window',
      ],
      dir,
      plain,
    );
    const before = await runCli(['search', 'mobile deploy', '--json'], dir, plain);
    expect(before.json().results.map((r: { name: string }) => r.name)).toEqual(['Checklist', 'Window']);

    const withReranker = { ...plain, MEM_RERANK_URL: service.baseURL, MEM_RERANK_MODEL: 'bge-reranker' };
    const after = await runCli(['search', 'mobile deploy', '--json'], dir, withReranker);
    expect(after.code, after.stderr).toBe(0);
    expect(after.json().results.map((r: { name: string }) => r.name)).toEqual(['Window', 'Checklist']);
    expect(calls).toBe(1);

    const bad = await runCli(['search', 'x'], dir, { ...withReranker, MEM_RERANK_DEPTH: '1' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEM_RERANK_DEPTH must be a whole number from 2 to 100');
    const orphan = await runCli(['search', 'x'], dir, { ...plain, MEM_RERANK_MODEL: 'm' });
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain('need MEM_RERANK_URL');
  });
});
