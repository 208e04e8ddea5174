/** `MEM_EXTRACTOR=llm`: `mem distill` reads a conversation with a chat model on 127.0.0.1, and `mem why` cites it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-distill-llm-'));
let model: Awaited<ReturnType<typeof startFakeChatServer>>;
const asked: string[] = [];

beforeAll(async () => {
  // A model that reads one fact, citing the first message by its ref.
  model = await startFakeChatServer((request, send) => {
    asked.push(JSON.stringify(request.body.messages));
    const memory = {
      subject: 'user',
      attribute: 'residence',
      single: true,
      value: 'Porto',
      statement: 'User lives in Porto.',
      stance: 'for',
      polarity: 'holds',
      kind: 'residence',
      validFrom: null,
      validTo: null,
      evidence: ['m1'],
      about: null,
    };
    send(200, {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: request.body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: JSON.stringify({ memories: [memory] }) },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
    });
  });
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mem distill with MEM_EXTRACTOR=llm', () => {
  it('forms the memory the model reads, logs the model, and refuses bad settings as usage errors', async () => {
    const file = join(dir, 'chat.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'turn-1', role: 'user', content: 'We settled in Porto last spring.', at: '2026-05-01T09:00:00Z' })}\n`,
    );
    const env = {
      MEM_EMBEDDER: 'hashing',
      MEM_EXTRACTOR: 'llm',
      MEM_LLM_BASE_URL: model.baseURL,
      MEM_LLM_MODEL: 'small',
    };
    const r = await runCli(['distill', '--file', file, '--json'], dir, env);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report).toMatchObject({
      extractor: 'llm:small',
      model: 'small',
      decisions: [{ decision: 'add', value: 'Porto', evidence: ['turn-1'] }],
      usage: { inputTokens: 120, outputTokens: 30 },
    });
    // The model saw the message under its ref, never its id.
    expect(asked.join('\n')).not.toContain('turn-1');
    const why = await runCli(['why', report.decisions[0].memoryId, '--json'], dir, env);
    expect(why.json().decisions).toMatchObject([{ decision: 'add', extractor: 'llm:small', evidence: ['turn-1'] }]);

    const bad = await runCli(['distill', '--file', file], dir, { ...env, MEM_EXTRACTOR: 'gpt' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEM_EXTRACTOR must be "offline" or "llm"');
    const noModel = await runCli(['distill', '--file', file], dir, { MEM_EMBEDDER: 'hashing', MEM_EXTRACTOR: 'llm' });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('MEM_EXTRACTOR=llm needs MEM_LLM_MODEL');
  });
});
