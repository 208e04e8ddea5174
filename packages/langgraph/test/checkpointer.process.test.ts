/**
 * A LangGraph thread survives its process: process 1 runs a graph (memory node, scripted model, a tool) compiled
 * with `checkpointer: new MemCheckpointSaver(...)` on a SQLite file for two turns — the second stops before its tool
 * call (`interruptBefore`) — and exits; process 2, a fresh child process on the same file, reads the thread with
 * `graph.getState`, resumes the tool call and adds a turn. See fixtures/thread-process.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./fixtures/thread-process.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
const dir = mkdtempSync(join(tmpdir(), 'mem-lg-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function processRun(mode: 'first' | 'second', thread: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=dev-source', '--import', TSX, SCRIPT, join(dir, 'mem.db'), mode, thread],
    { env: process.env },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('MemCheckpointSaver: a LangGraph thread across two processes on one SQLite file', () => {
  it('process 2 reads the thread process 1 left, resumes its interrupted tool call and continues it', async () => {
    const first = await processRun('first', 'trip-42');
    const asked = [
      'human: I am planning a trip to Lisbon.',
      'ai: Lisbon is lovely in May.',
      'human: What is the weather there?',
      'ai: ',
    ];
    expect(first.messages).toEqual(asked);
    expect(first.next).toEqual(['tools']);

    const second = await processRun('second', 'trip-42');
    expect(second.pid).not.toBe(first.pid);
    // getState in the new process: the messages, the interrupted step, mem's channel and the history.
    expect(second.restored).toEqual(asked);
    expect(second.restoredNext).toEqual(['tools']);
    // The memory node had written three: the tool call goes to mem with its result, after the tools node.
    expect(second.restoredWritten).toBe(3);
    expect(second.history as number).toBeGreaterThan(4);
    // Invoking continues the thread: the tool ran here, then the answer, then the next turn.
    expect(second.messages).toEqual([
      ...asked,
      'tool: Sunny in Lisbon, 24°C',
      'ai: It is sunny in Lisbon, 24°C.',
      'human: Which month did I pick?',
      'ai: You picked May.',
    ]);
    const prompt = (second.lastPrompt as string[]).join('\n');
    expect(prompt).toContain('I am planning a trip to Lisbon.');
    expect((second.lastPrompt as string[]).at(-1)).toBe('human: Which month did I pick?');
    // mem's transcript holds each message once: the restored `mem` channel knew what process 1 had written.
    expect(second.transcript).toEqual([
      'user: I am planning a trip to Lisbon.',
      'assistant: Lisbon is lovely in May.',
      'user: What is the weather there?',
      'assistant: [tool call weather #call-1] {"city":"Lisbon"}',
      'tool: [tool result weather #call-1] Sunny in Lisbon, 24°C',
      'assistant: It is sunny in Lisbon, 24°C.',
      'user: Which month did I pick?',
      'assistant: You picked May.',
    ]);
  });
});
