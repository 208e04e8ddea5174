/** `MEM_QUERY_REWRITE=llm`: the CLI's searches also run the queries a chat model on 127.0.0.1 rewrites them into. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-rewrite-'));
let model: Awaited<ReturnType<typeof startFakeChatServer>>;
const asked: string[] = [];

beforeAll(async () => {
  // A model that knows the on-call rota lives under "pager".
  model = await startFakeChatServer((request, send) => {
    asked.push(request.body.messages.at(-1).content as string);
    send(200, {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: request.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: '["pager rotation"]' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
    });
  });
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mem search with MEM_QUERY_REWRITE=llm', () => {
  it('finds what only the rewritten query matches; bad settings are usage errors', async () => {
    // Keyword search alone, so that only a shared word finds a memory.
    const plain = { MEM_EMBEDDER: 'none' };
    await runCli(['store', 'The pager rotation changes every Monday at noon.', '--name', 'Rota'], dir, plain);
    await runCli(['store', 'Lunch is served at noon on the third floor.', '--name', 'Lunch'], dir, plain);
    const before = await runCli(['search', 'who is on call this week', '--json'], dir, plain);
    expect(before.json().results).toEqual([]);

    const env = { ...plain, MEM_QUERY_REWRITE: 'llm', MEM_LLM_BASE_URL: model.baseURL, MEM_LLM_MODEL: 'small' };
    const after = await runCli(['search', 'who is on call this week', '--json'], dir, env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.json().results[0].name).toBe('Rota');
    expect(asked).toEqual(['Search query: "who is on call this week"']);

    const bad = await runCli(['search', 'x'], dir, { ...plain, MEM_QUERY_REWRITE: 'yes' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEM_QUERY_REWRITE must be "off" or "llm"');
    const noModel = await runCli(['search', 'x'], dir, { ...plain, MEM_QUERY_REWRITE: 'llm' });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('MEM_QUERY_REWRITE=llm needs MEM_LLM_MODEL');
  });
});
