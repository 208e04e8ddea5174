import { parseArgs } from 'node:util';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  MemError,
  type Principal,
  type Stack,
} from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CliArgs,
  commandFlags,
  defaultOperations,
  flagsOfUsage,
  type Operation,
  runnerOperations,
  stateOperations,
  structuredOperations,
  UsageError,
} from '../src/index.js';

const open: Stack[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function stack(withStructured = true): Stack {
  const s = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder(),
    services: [episodicServices(), proceduralServices()],
    ...(withStructured ? { structured: createInMemoryStructuredStores() } : {}),
  });
  open.push(s);
  return s;
}

const worker: Principal = { space: 'acme', agentId: 'coder', role: 'worker' };
const lead: Principal = { space: 'acme', agentId: 'planner', role: 'lead' };
const cliArgs = (args: string[], flags: Record<string, unknown> = {}): CliArgs => ({
  args,
  flags,
  readStdin: async () => 'from stdin',
  readTextFile: () => {
    throw new Error('no file in this test');
  },
});

function op(name: string): Operation {
  const found = [...structuredOperations, ...stateOperations, ...runnerOperations].find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
}

async function run(s: Stack, p: Principal, name: string, input: unknown) {
  return op(name).run({ principal: p, stack: s, params: {}, transport: 'cli' }, input);
}

describe('the operation table', () => {
  it('binds each CLI command, HTTP route and MCP tool once, and each usage names its command', () => {
    const all = [...defaultOperations(stack()), ...runnerOperations];
    const unique = (xs: string[]) => expect(new Set(xs).size).toBe(xs.length);
    unique(all.map((o) => o.name));
    unique(all.flatMap((o) => (o.http ? [`${o.http.method} ${o.http.path}`] : [])));
    unique(all.flatMap((o) => (o.tool ? [o.tool.name] : [])));
    const cli = all.flatMap((o) => (o.cli ? [o.cli] : []));
    unique(cli.map((c) => c.command));
    expect(cli.length).toBeGreaterThanOrEqual(29);
    for (const c of cli) expect(c.usage.startsWith(`mem ${c.command}`), c.command).toBe(true);
  });

  it('the stack builds episodic, procedural and consolidation once, and only when asked', () => {
    const a = stack();
    const b = stack();
    expect(a.episodes).toBeDefined();
    expect(a.episodes).toBe(a.episodes);
    expect(a.service('episodes')).toBe(a.episodes);
    expect(a.procedures).toBe(a.service('procedures'));
    expect(a.consolidation).toBe(a.service('consolidation'));
    expect(a.episodes).not.toBe(b.episodes);
    // A stack without the ports: no service, and asking for one names the port to add.
    const bare = stack(false);
    expect(bare.episodes).toBeUndefined();
    expect(() => bare.service('episodes')).toThrow(expect.objectContaining({ code: 'CAPABILITY_MISSING' }));
    // A stack without the plug-in names the plug-in.
    const plain = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      structured: createInMemoryStructuredStores(),
    });
    open.push(plain);
    expect(plain.procedures).toBeUndefined();
    expect(() => plain.service('procedures')).toThrow(/proceduralServices\(\) from @mem\/procedural/);
  });

  it('refuses a lead-only operation to a worker before any work, on any stack', async () => {
    for (const s of [stack(), stack(false)]) {
      const refused = await run(s, worker, 'consolidate', { minEpisodes: 1 }).catch((e: unknown) => e);
      expect(MemError.is(refused, 'FORBIDDEN')).toBe(true);
      expect((refused as Error).message).toContain('Only a lead may run consolidate');
      expect((refused as MemError).details).toEqual({ operation: 'consolidate', role: 'worker' });
      // forget's rule is declared in the table too: refused before the input is even read.
      const notForget = await run(s, worker, 'forget', { nonsense: true }).catch((e: unknown) => e);
      expect([MemError.is(notForget, 'FORBIDDEN'), (notForget as MemError).details?.operation]).toEqual([
        true,
        'forget',
      ]);
    }
    const s = stack();
    for (const summary of ['deployed billing', 'deployed search'])
      await run(s, worker, 'episode-store', { summary, toolsUsed: ['deploy'], outcome: 'success', tags: ['deploy'] });
    const report = (await run(s, lead, 'consolidate', { minEpisodes: 1 })) as { episodesProcessed: number };
    expect(report.episodesProcessed).toBe(2);
  });

  it('turns a command line into the operation input, and refuses a malformed one with a usage error', async () => {
    const add = op('episode-store').cli!;
    expect(await add.input(cliArgs(['shipped', 'v2'], { tools: 'deploy, ci', decisions: 'a; b', tags: 'x' }))).toEqual({
      summary: 'shipped v2',
      toolsUsed: ['deploy', 'ci'],
      keyDecisions: ['a', 'b'],
      tags: ['x'],
    });
    const forget = op('forget').cli!;
    expect(() => forget.input(cliArgs([], { agent: 'a', user: 'u' }))).toThrow(UsageError);
    expect(() => forget.input(cliArgs([]))).toThrow(UsageError);
    expect(() => forget.input(cliArgs([], { agent: 'a', message: ['m1'] }))).toThrow(UsageError);
    expect(await forget.input(cliArgs([], { message: ['m1', 'm2'] }))).toEqual({ messages: ['m1', 'm2'] });
    expect(commandFlags(forget).message).toEqual({ type: 'string', multiple: true });
    expect(await op('goal-set').cli!.input(cliArgs(['-'], { user: 'ada' }))).toEqual({
      user: 'ada',
      goal: 'from stdin',
    });
    expect(() => op('procedure-outcome').cli!.input(cliArgs(['p1']))).toThrow('--success true|false is required');
    expect(() => op('tool-event-record').cli!.input(cliArgs(['s1'], { tool: 'x' }))).toThrow(
      '--latency-ms N is required',
    );
  });

  it('forgets what rests only on some messages, and prints what it kept', async () => {
    const s = stack();
    const ann: Principal = { ...worker, userId: 'ann' };
    const at = '2026-05-01T09:00:00.000Z';
    await s.knowledge.distill(ann, {
      messages: [
        { id: 'm1', role: 'user', content: 'I live in Lisbon. I have a dog named Rex.', at },
        { id: 'm2', role: 'user', content: 'As I said, I live in Lisbon', at },
      ],
    });
    const forget = op('forget');
    const report = await run(s, lead, 'forget', { messages: ['m1'] });
    expect(forget.output!.parse(report)).toMatchObject({
      subject: { messages: ['m1'] },
      removed: { memories: { documents: 1, chunks: 1 } },
    });
    const text = forget.cli!.print(report as never, { messages: ['m1'] } as never);
    expect(text).toContain('Forgot what rests only on 1 message(s) in space acme:');
    expect(text).toContain('note: messages: 1 formed memory citing these messages was kept');
    expect((await s.knowledge.stats(ann)).documents).toBe(1);
  });

  it("reads a command's flags from its usage line: a flag with a value is a string, a bare one a boolean", () => {
    expect(
      flagsOfUsage('mem x <a|-> [--name N] [--open] --tool T [--failed true|false] [--at=ISO] (--all | --b B) --last'),
    ).toEqual({
      name: { type: 'string' },
      open: { type: 'boolean' },
      tool: { type: 'string' },
      failed: { type: 'string' },
      at: { type: 'string' },
      all: { type: 'boolean' },
      b: { type: 'string' },
      last: { type: 'boolean' },
    });
    const end = commandFlags(op('task-end').cli!);
    expect(end.automatic).toEqual({ type: 'boolean' });
    expect(end['task-id']).toEqual({ type: 'string' });
    const parsed = parseArgs({
      args: ['--automatic', 'shipped', '--task-id', 't1'],
      options: end,
      allowPositionals: true,
      strict: true,
    });
    expect(parsed.positionals).toEqual(['shipped']);
    expect(parsed.values).toEqual({ automatic: true, 'task-id': 't1' });
    // What a usage line cannot say (a repeated flag) is declared, and wins over the reading.
    const context = defaultOperations(stack()).find((o) => o.name === 'task-context-gathering')!.cli!;
    expect(commandFlags(context).query).toEqual({ type: 'string', multiple: true });
    // Every flag a command declares is also named in its usage, so `--help` shows all of them.
    for (const o of [...defaultOperations(stack()), ...runnerOperations]) {
      for (const name of Object.keys(o.cli?.flags ?? {}))
        expect(o.cli!.usage, `${o.name} --${name}`).toContain(`--${name}`);
    }
  });
});
