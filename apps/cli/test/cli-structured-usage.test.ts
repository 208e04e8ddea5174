/**
 * `mem episodes add|recall` and `mem procedures add|suggest --json` with `--embedder openai` against a fake
 * OpenAI-compatible embeddings server on 127.0.0.1: the JSON carries the tokens the API reported; hashing reports zero.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeChatServer, wordTokens } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const DIM = 8;
const dir = mkdtempSync(join(tmpdir(), 'mem-cli-structured-usage-'));
let api: Awaited<ReturnType<typeof startFakeChatServer>>;
const seen: string[][] = [];

/** A deterministic vector per text (character codes folded into DIM coordinates). */
function vectorFor(text: string): number[] {
  const v = new Array<number>(DIM).fill(0.01);
  for (let i = 0; i < text.length; i++) v[i % DIM]! += (text.charCodeAt(i) % 17) / 17;
  return v;
}

beforeAll(async () => {
  api = await startFakeChatServer(
    ({ body }, send) => {
      const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
      seen.push(input);
      const n = wordTokens(input);
      send(200, {
        object: 'list',
        model: body.model,
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t) })),
        usage: { prompt_tokens: n, total_tokens: n },
      });
    },
    { path: '/v1/embeddings' },
  );
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });

describe('the CLI JSON of episodes and procedures shows the embedder usage', () => {
  it('--embedder openai: the tokens of each call; --embedder hashing: zero', async () => {
    const env = {
      MEM_EMBEDDER: 'openai',
      MEM_EMBED_MODEL: 'fake-embed',
      MEM_EMBED_BASE_URL: api.baseURL,
      MEM_EMBED_API_KEY: 'test-key',
      MEM_EMBED_DIMENSIONS: String(DIM),
    };
    const cli = async (args: string[]) => {
      const r = await runCli([...args, '--json'], dir, env);
      expect(r.code, r.stderr).toBe(0);
      return r.json();
    };

    seen.length = 0;
    const added = await cli(['episodes', 'add', 'Rolled back the friday release', '--outcome', 'success']);
    expect(seen).toHaveLength(1);
    expect(added.usage).toEqual(tokens(wordTokens(seen[0]!)));
    expect(added.usage.totalTokens).toBeGreaterThanOrEqual(5);
    const recalled = await cli(['episodes', 'recall', 'roll back the release']);
    expect(recalled.usage).toEqual(tokens(4));
    expect(recalled.results[0].episode.id).toBe(added.id);

    const file = join(dir, 'procedure.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'deploy api', trigger: 'ship the api', steps: [{ toolName: 'deploy' }] }),
    );
    seen.length = 0;
    const stored = await cli(['procedures', 'add', file]);
    expect(stored.usage).toEqual(tokens(wordTokens(seen[0]!)));
    expect(stored.usage.totalTokens).toBeGreaterThan(0);
    const suggested = await cli(['procedures', 'suggest', 'ship the api']);
    expect(suggested.usage).toEqual(tokens(3));
    expect(suggested.results[0].procedure.id).toBe(stored.id);

    const hashing = { MEM_EMBEDDER: 'hashing' };
    const h = async (args: string[]) => {
      const r = await runCli([...args, '--json'], dir, hashing);
      expect(r.code, r.stderr).toBe(0);
      return r.json();
    };
    seen.length = 0;
    expect((await h(['episodes', 'add', 'Deployed the api'])).usage).toEqual(tokens(0));
    expect((await h(['procedures', 'add', file])).usage).toEqual(tokens(0));
    expect((await h(['episodes', 'recall', 'release'])).usage).toEqual(tokens(0));
    expect((await h(['procedures', 'suggest', 'deploy'])).usage).toEqual(tokens(0));
    expect(seen).toHaveLength(0);
  });
});
