import { MemError } from '@mem/core';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { executeMemoryCommand, memoryTools } from '../src/index.js';
import { me, promptText, textAnswer, toolAnswer, world } from './helpers.js';

const run = (tool: unknown, input: unknown) =>
  (tool as { execute: (i: unknown, o: unknown) => Promise<any> }).execute(input, { toolCallId: 't', messages: [] });

describe('memoryTools', () => {
  it('offers memory and notebook tools with mem’s schemas, and they act on the stack', async () => {
    const stack = world().boot();
    const tools = memoryTools(stack, me);
    expect(Object.keys(tools)).toEqual([
      'memory-store',
      'memory-search',
      'memory-edit',
      'memory_rate',
      'write_memory',
      'read_memory',
      'delete_memory',
      'search_memory',
    ]);
    const stored = await run(tools['memory-store'], { content: 'Releases ship on Tuesdays.', name: 'Release day' });
    const found = await run(tools['memory-search'], { query: 'which day do releases ship' });
    expect(found.results[0]).toMatchObject({ id: stored.id, name: 'Release day' });
    await run(tools['memory-edit'], {
      id: stored.id,
      intent: 'moved',
      mode: 'exact',
      oldText: 'Tuesdays',
      newText: 'Wednesdays',
    });
    expect((await stack.knowledge.get(me, { id: stored.id })).content).toBe('Releases ship on Wednesdays.');
    // An author's vote on its own memory is recorded, not counted (one counted vote per rater, never the author's).
    expect(await run(tools.memory_rate, { id: stored.id, useful: true, taskId: 'T-1' })).toMatchObject({
      counted: false,
    });
    await run(tools.write_memory, { file: 'people.md', content: 'Ada leads billing.' });
    expect((await run(tools.read_memory, { file: 'people.md' })).content).toBe('Ada leads billing.\n');
    expect((await run(tools.search_memory, { query: 'billing' })).results[0].file).toBe('people.md');
    expect(await run(tools.delete_memory, { file: 'people.md' })).toEqual({ file: 'people.md', deleted: true });
    await expect(run(tools['memory-store'], { content: '' })).rejects.toThrow(/content must not be empty/);
  });

  it('a refused call reaches the model as the tool’s error, with mem’s message', async () => {
    const stack = world().boot();
    const model = new MockLanguageModelV4({
      doGenerate: [
        toolAnswer('memory-store', { content: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' }),
        textAnswer('ok'),
      ],
    });
    await generateText({ model, tools: memoryTools(stack, me), stopWhen: isStepCount(2), prompt: 'save my token' });
    const sent = promptText(model.doGenerateCalls[1]!.prompt as never);
    expect(sent).toMatch(/GitHub/);
    expect((await stack.knowledge.stats(me)).documents).toBe(0);
  });
});

describe('executeMemoryCommand (Anthropic memory tool)', () => {
  it('view, create, str_replace, insert, rename and delete act on the notebook files', async () => {
    const stack = world().boot();
    const nb = stack.notebook!;
    const exec = (c: unknown) => executeMemoryCommand(nb, me, c);
    expect(await exec({ command: 'view', path: '/memories' })).toContain('(none yet)');
    await exec({ command: 'create', path: '/memories/MEMORY.md', file_text: 'Project: billing\nOwner: Ada\n' });
    await exec({ command: 'create', path: '/memories/notes.txt', file_text: 'first\n' });
    expect(await exec({ command: 'view', path: '/memories' })).toMatch(
      /\t\/memories\/MEMORY.md\n.*\t\/memories\/notes.txt$/,
    );
    await exec({ command: 'str_replace', path: '/memories/MEMORY.md', old_str: 'Owner: Ada', new_str: 'Owner: Grace' });
    await exec({ command: 'insert', path: '/memories/MEMORY.md', insert_line: 1, insert_text: 'Status: active' });
    expect(await exec({ command: 'view', path: '/memories/MEMORY.md' })).toBe(
      'Content of /memories/MEMORY.md with line numbers:\n     1\tProject: billing\n     2\tStatus: active\n     3\tOwner: Grace',
    );
    expect(await exec({ command: 'view', path: '/memories/MEMORY.md', view_range: [2, 2] })).toMatch(
      / {5}2\tStatus: active$/,
    );
    // MEMORY.md is the notebook every request gets.
    expect((await nb.inject(me)).text).toContain('Owner: Grace');
    await exec({ command: 'rename', old_path: '/memories/notes.txt', new_path: '/memories/archive/notes.md' });
    expect((await nb.list(me)).files.map((f) => f.file)).toEqual(['MEMORY.md', 'archive/notes.md']);
    await exec({ command: 'delete', path: '/memories/archive' });
    expect((await nb.list(me)).files.map((f) => f.file)).toEqual(['MEMORY.md']);
  });

  it('refuses bad commands with clear errors and changes nothing', async () => {
    const stack = world().boot();
    const nb = stack.notebook!;
    await nb.write(me, { content: 'a line\na line' });
    const refused = async (c: unknown, code: string, text: RegExp) => {
      const error = await executeMemoryCommand(nb, me, c).catch((e: unknown) => e);
      expect(MemError.is(error, code as never)).toBe(true);
      expect((error as Error).message).toMatch(text);
    };
    await refused({ command: 'view', path: '/etc/passwd' }, 'INVALID_INPUT', /outside \/memories/);
    await refused({ command: 'view', path: '/memories/../x' }, 'INVALID_INPUT', /"\.\."/);
    await refused({ command: 'format' }, 'INVALID_INPUT', /Commands: view, create/);
    await refused(
      { command: 'str_replace', path: '/memories/MEMORY.md', old_str: 'a line', new_str: 'b' },
      'INVALID_INPUT',
      /occurs 2 times/,
    );
    await refused({ command: 'delete', path: '/memories/MEMORY.md' }, 'FORBIDDEN', /cannot be deleted/);
    await refused({ command: 'view', path: '/memories/none.md' }, 'NOT_FOUND', /No memory file/);
    await refused(
      { command: 'insert', path: '/memories/MEMORY.md', insert_line: 9, insert_text: 'x' },
      'INVALID_INPUT',
      /past the end/,
    );
    expect((await nb.read(me)).content).toBe('a line\na line\n');
    expect((await nb.list(me)).files).toHaveLength(1);
  });
});
