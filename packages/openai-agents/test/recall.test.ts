import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, MemError, type Stack } from '@mem/core';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '@mem/store-sqlite';
import { type ChatRequest, startFakeChatServer } from '@mem/testkit/internal';
import { Agent, type CallModelInputFilter, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestUserText, MemSession, memoryRecallFilter, memoryTools } from '../src/index.js';
import { completion, toolCall } from './chat-completion.js';

setTracingDisabled(true);

const me = { space: 'acme', agentId: 'helper', role: 'worker' } as const;
const FACT = 'The staging database is reset every Sunday at 02:00 UTC.';
const HEADING = '### Relevant Past Knowledge';
let dir: string;
/** Two stacks on one SQLite file, as two processes would have: one writes, the other runs the agent. */
let writer: Stack;
let stack: Stack;
let server: Awaited<ReturnType<typeof startFakeChatServer>>;
const requests: ChatRequest[] = [];

const openStack = (db: string) =>
  createStack({
    knowledge: createSqliteStore({ path: db }),
    embedder: createHashingEmbedder(),
    transcripts: createSqliteTranscriptStore({ path: db }),
    notebooks: createSqliteNotebookStore({ path: db }),
  });

const answer = (message: Record<string, unknown>) => completion(message, requests.length);

type Sent = { role: string; content?: unknown }[];
const sentOf = (i: number) => requests[i]!.body.messages as Sent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-agents-recall-'));
  const db = join(dir, 'mem.db');
  writer = openStack(db);
  stack = openStack(db);
  await writer.knowledge.store(me, { content: FACT, key: '/projects/ops/staging-reset' });
  // The fake model: "finish the task …" → it calls task_end; a tool result → "done"; anything else → "ok".
  server = await startFakeChatServer((request, send) => {
    requests.push(request);
    const last = (request.body.messages as Sent).at(-1)!;
    if (last.role === 'tool') return send(200, answer({ content: 'done' }));
    const text = String(last.content);
    if (!text.startsWith('Please finish the task')) return send(200, answer({ content: 'ok' }));
    const args = { taskId: 'rotate-1', task: text, summary: 'Rotated the staging API keys with `vault rotate`.' };
    return send(200, toolCall('task_end', args, requests.length));
  });
});

afterAll(async () => {
  await server.close();
  await writer.close();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

const runnerWith = (callModelInputFilter?: CallModelInputFilter) =>
  new Runner({
    modelProvider: new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', useResponses: false }),
    tracingDisabled: true,
    ...(callModelInputFilter ? { callModelInputFilter } : {}),
  });
const agentWith = (tools: ReturnType<typeof memoryTools> = []) =>
  new Agent({ name: 'helper', instructions: 'Answer from memory.', model: 'fake-model', tools });
const session = (sessionId: string) => new MemSession({ conversations: stack.conversations, space: 'acme', sessionId });

describe('memoryRecallFilter in a real Agent run', () => {
  it('puts a memory stored by another stack on the same store into the model input, at the end of the instructions', async () => {
    const chat = session('recall-1');
    const before = requests.length;
    const result = await runnerWith(memoryRecallFilter({ stack, principal: me })).run(
      agentWith(),
      'When is the staging database reset?',
      { session: chat },
    );
    expect(result.finalOutput).toBe('ok');
    const sent = sentOf(before);
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    const system = String(sent[0]!.content);
    expect(system.startsWith(`Answer from memory.\n\n${HEADING}\n`)).toBe(true);
    expect(system).toContain(FACT);
    // The agent has no memory_get tool: the block names no tool to read a memory with.
    expect(system).not.toMatch(/memory[-_]get/);
    expect(sent[1]!.content).toBe('When is the staging database reset?');

    // The block is prompt-only: the session holds the user's message and the answer, nothing of the block.
    const items = await chat.getItems();
    expect(items.map((i) => (i as { role?: string }).role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(items)).not.toContain('Relevant Past Knowledge');
    const stored = (await stack.conversations!.store.read('acme', 'recall-1'))?.messages ?? [];
    expect(stored.map((m) => m.content).join('\n')).not.toContain('Relevant Past Knowledge');

    // The next run sends the stored history: the block is again in the instructions only, once.
    const next = requests.length;
    await runnerWith(memoryRecallFilter({ stack, principal: me })).run(
      agentWith(),
      'Is the staging database reset on Sundays?',
      {
        session: session('recall-1'),
      },
    );
    const again = sentOf(next);
    expect(again.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(again.filter((m) => String(m.content).includes(HEADING)).map((m) => m.role)).toEqual(['system']);
  });

  it('names memory_get in the block when the agent has that tool, and recalls before every model call of the run', async () => {
    const tools = memoryTools({ stack, principal: me, only: ['memory_get', 'task_end'] });
    const before = requests.length;
    await runnerWith(memoryRecallFilter({ stack, principal: me })).run(
      agentWith(tools),
      'Please finish the task of checking when the staging database is reset',
      { session: session('recall-2') },
    );
    // Two model calls (the task_end call, then the answer after its result): the block is in both.
    expect(requests.length - before).toBe(2);
    for (const i of [before, before + 1]) {
      const system = String(sentOf(i)[0]!.content);
      expect(system).toContain(FACT);
      expect(system.endsWith('To read a memory in full, call memory_get with its id.')).toBe(true);
    }
  });

  it('leaves the input exactly as without the filter when nothing passes the threshold', async () => {
    const question = 'Which colour should the new marketing banner be?';
    expect((await stack.knowledge.recall(me, question)).block).toBeNull();
    const plain = requests.length;
    await runnerWith().run(agentWith(), question, { session: session('plain-3') });
    const filtered = requests.length;
    await runnerWith(memoryRecallFilter({ stack, principal: me })).run(agentWith(), question, {
      session: session('recall-3'),
    });
    expect(sentOf(filtered)).toEqual(sentOf(plain));
    expect(sentOf(filtered)[0]).toEqual({ role: 'system', content: 'Answer from memory.' });

    // Called directly: the very same model data comes back (also when the input holds no user text).
    const filter = memoryRecallFilter({ stack, principal: me });
    const agent = agentWith() as never; // the filter's argument type wants an agent of any output type
    const modelData = { input: [{ role: 'user' as const, content: question }], instructions: 'Be brief.' };
    expect(await filter({ modelData, agent, context: undefined })).toBe(modelData);
    const noUser = { input: [], instructions: 'Be brief.' };
    expect(await filter({ modelData: noUser, agent, context: undefined })).toBe(noUser);
    const hit = await filter({
      modelData: { input: [{ role: 'user', content: [{ type: 'input_text', text: 'staging database reset' }] }] },
      agent,
      context: undefined,
    });
    expect(hit.instructions).toContain(FACT);
  });

  it('completes the run with the input unchanged and logs a warning when the recall fails', async () => {
    const broken = openStack(join(dir, 'broken.db'));
    await broken.knowledge.store(me, { content: FACT });
    await broken.close(); // its store is closed: every recall now throws
    await expect(broken.knowledge.recall(me, 'When is the staging database reset?')).rejects.toThrow();
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = { warn: (message: string, fields?: Record<string, unknown>) => warnings.push({ message, fields }) };
    const chat = session('recall-4');
    const before = requests.length;
    const result = await runnerWith(memoryRecallFilter({ stack: broken, principal: me, logger })).run(
      agentWith(),
      'When is the staging database reset?',
      { session: chat },
    );
    expect(result.finalOutput).toBe('ok');
    expect(sentOf(before)).toEqual([
      { role: 'system', content: 'Answer from memory.' },
      { role: 'user', content: 'When is the staging database reset?' },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^recall failed/);
    expect(warnings[0]!.fields).toMatchObject({ space: 'acme', agentId: 'helper' });
    expect((await chat.getItems()).length).toBe(2);
  });

  it('ends a task from the run with the task_end tool, and a later run recalls the task memory', async () => {
    const tools = memoryTools({ stack, principal: me, only: ['task_end'] });
    const result = await runnerWith().run(agentWith(tools), 'Please finish the task: rotate the staging API keys', {
      session: session('task-5'),
    });
    expect(result.finalOutput).toBe('done');
    const found = await writer.knowledge.search(me, { query: 'rotate staging API keys vault', limit: 5 });
    const task = found.find((r) => r.source === 'task_completion');
    expect(task?.content).toContain('Rotated the staging API keys with `vault rotate`.');

    const before = requests.length;
    await runnerWith(memoryRecallFilter({ stack: writer, principal: me })).run(
      agentWith(),
      'How do we rotate the staging API keys?',
      { session: session('task-6') },
    );
    expect(String(sentOf(before)[0]!.content)).toContain('vault rotate');
  });

  it('finds the newest user text and refuses bad options', () => {
    expect(
      latestUserText([
        { role: 'user', content: 'first' },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'a' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'second' },
            { type: 'input_image', image: 'x' },
          ],
        },
        { type: 'function_call_result', callId: 'c', name: 't', status: 'completed', output: 'r' },
      ]),
    ).toBe('second');
    expect(latestUserText([{ role: 'user', content: '  ' }])).toBeNull();
    expect(() => memoryRecallFilter({ principal: me } as never)).toThrow(/give the stack createStack returned/);
    const bad = (() => {
      try {
        memoryRecallFilter({ stack, principal: me, threshold: 2 });
      } catch (error) {
        return error;
      }
    })();
    expect(MemError.is(bad, 'INVALID_INPUT')).toBe(true);
    expect(() => memoryRecallFilter({ stack, principal: me, limit: 0 })).toThrow(/limit must be a whole number/);
  });
});
