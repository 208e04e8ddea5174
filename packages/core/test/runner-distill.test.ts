/**
 * The runner distils as the conversation goes (docs/runner.md): in the background once a batch of tokens is written
 * (the reply does not wait), before a compaction archives messages (a failed distillation postpones the compaction),
 * and at a session's end; off with `distill: false`; its runs, counts and tokens in the context report.
 */
import { describe, expect, it } from 'vitest';
import type { StatementExtraction, StatementExtractionInput, StatementExtractor } from '../src/adapter.js';
import { createOfflineStatementExtractor, formationStats, ManualClock } from '../src/adapter.js';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  MemError,
  type Principal,
  Runner,
  type RunnerOptions,
  type Stack,
} from '../src/index.js';

const ben: Principal = { space: 'acme', agentId: 'travel', role: 'worker', userId: 'ben' };
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The offline extractor, held at a gate while `hold` is set, counting its calls; or failing when `fail` is set. */
function gatedExtractor() {
  const offline = createOfflineStatementExtractor();
  const state = {
    calls: 0,
    fail: false,
    gate: null as Promise<void> | null,
    open: () => {},
    hold() {
      state.gate = new Promise<void>((resolve) => {
        state.open = () => {
          state.gate = null;
          resolve();
        };
      });
    },
  };
  const extractor: StatementExtractor = {
    id: 'gated',
    model: 'scripted-model',
    promptVersion: 'gated-1',
    async extract(input: StatementExtractionInput): Promise<StatementExtraction> {
      state.calls += 1;
      if (state.gate) await state.gate;
      if (state.fail) throw new Error('the extractor is down');
      const out = await offline.extract(input);
      return { ...out, usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 } };
    },
  };
  return { extractor, state };
}

function setup(options: RunnerOptions = {}, extractor?: StatementExtractor, withState = true) {
  const clock = new ManualClock('2026-05-01T09:00:00.000Z');
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder(),
    transcripts: createInMemoryTranscriptStore(),
    ...(withState ? { structured: createInMemoryStructuredStores() } : {}),
    clock,
    logger: quiet,
    ...(extractor ? { extractor } : {}),
  });
  return { stack, clock, runner: new Runner(stack, options) };
}

async function formed(stack: Stack, p: Principal, query: string): Promise<string[]> {
  return (await stack.knowledge.search(p, { query })).filter((r) => r.source === 'distilled').map((r) => r.content);
}

describe('Runner distillation', () => {
  it('runs in the background once a batch is written: the reply does not wait for it, the next report has it', async () => {
    const { extractor, state } = gatedExtractor();
    const { stack, runner } = setup({ distillTokens: 5 }, extractor);
    state.hold();
    const turn = await runner.assembleTurn({
      principal: ben,
      messages: [{ role: 'user', content: 'I prefer morning flights.' }],
    });
    // The turn came back while the extractor is still held.
    expect(state.calls).toBeGreaterThanOrEqual(1);
    expect(turn.report.distillation).toMatchObject({ batchTokens: 5, running: true, finished: [] });
    expect(await formed(stack, ben, 'flights')).toEqual([]);
    state.open();
    await runner.settle();
    expect(await formed(stack, ben, 'flights')).toEqual(['User prefers morning flights.']);
    const next = await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'ok' }] });
    const runs = next.report.distillation!.finished;
    expect(runs.reduce((n, r) => n + r.add, 0)).toBe(1);
    expect(runs.every((r) => r.error === null && r.extractor === 'gated')).toBe(true);
    // Its tokens are spent once, in the report that first sees the run.
    const spent = next.report.spent.filter((s) => s.operation === 'distillation');
    expect(spent.length).toBe(runs.filter((r) => r.usage.totalTokens > 0).length);
    expect(spent[0]).toEqual({
      operation: 'distillation',
      by: 'gated',
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    });
    await runner.settle();
    const again = await runner.assembleTurn({ principal: ben });
    expect(again.report.spent.filter((s) => s.operation === 'distillation').length).toBeLessThanOrEqual(1);
    expect(runner.distillationStats()).toMatchObject({ add: 1, failedRuns: 0 });
  });

  it('a change of mind supersedes, across runners (processes) on the same stores, for this user only', async () => {
    const { stack, clock, runner } = setup({ distillTokens: 1_000_000 });
    await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I prefer morning flights.' }] });
    clock.set('2026-05-08T08:00:00.000Z');
    await runner.recordTurn({
      principal: ben,
      messages: [{ role: 'user', content: 'Actually, afternoon flights suit me better now.' }],
    });
    const end = await runner.endSession({ principal: ben, summary: 'Talked about flights.' });
    expect(end.distillation).toMatchObject({ trigger: 'session-end', error: null });
    const formation = await formationStats(stack, 'acme');
    expect(formation.memories).toEqual({ open: 1, closed: 1 });
    expect(formation.decisions).toMatchObject({ add: 1, update: 1 });
    // Runners made with `new Runner` count themselves; the stack counts the runners it made (`stack.runner`).
    expect(runner.distillationStats()).toMatchObject({ add: 1, update: 1 });
    expect(stack.distillationStats().runs).toBe(0);
    await stack
      .runner({ distillTokens: 1 })
      .assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I love jazz.' }] });
    await stack.runner({ distillTokens: 1 }).settle();
    expect(stack.distillationStats()).toMatchObject({ add: 1 });
    const later = new Runner(stack, {});
    const turn = await later.assembleTurn({
      principal: { ...ben, agentId: 'concierge' },
      messages: [{ role: 'user', content: 'Book me flights to Lisbon.' }],
    });
    const recalled = (t: typeof turn) => t.messages.find((m) => m.content.includes('Relevant Past Knowledge'))?.content;
    expect(recalled(turn)).toContain('afternoon flights');
    expect(recalled(turn)).not.toContain('morning flights');
    const other = await later.assembleTurn({
      principal: { ...ben, agentId: 'desk', userId: 'ada' },
      messages: [{ role: 'user', content: 'Book me flights to Lisbon.' }],
    });
    expect(other.messages.map((m) => m.content).join('\n')).not.toContain('flights suit');
    expect(other.report.recalled.map((r) => r.name)).not.toContain(turn.report.recalled[0]?.name);
  });

  it('distils what a compaction archives before it runs; a failed distillation postpones the compaction', async () => {
    const { extractor, state } = gatedExtractor();
    const { stack, runner } = setup(
      { contextWindow: 400, threshold: 0.5, strategy: 'sliding-window', distillTokens: 1_000_000 },
      extractor,
    );
    await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'My dog is called Pixel.' }] });
    await runner.settle();
    state.fail = true;
    const filler = 'Tell me more about the weather in the mountains this week, with details. '.repeat(20);
    const turn = await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: filler }] });
    expect(turn.report.compaction).toBeNull();
    expect(turn.report.distillation!.finished.some((r) => r.trigger === 'compaction' && r.error !== null)).toBe(true);
    state.fail = false;
    const said = 'I moved to Porto last month.';
    const next = await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: said }] });
    expect(next.report.compaction?.status).toBe('compacted');
    expect(next.report.distillation!.finished.some((r) => r.trigger === 'compaction' && r.error === null)).toBe(true);
    expect(await formed(stack, ben, 'Porto')).toEqual(expect.arrayContaining([expect.stringContaining('Porto')]));
    expect(await formed(stack, ben, 'dog Pixel')).toEqual(expect.arrayContaining([expect.stringContaining('Pixel')]));
  });

  it('without a session-state store the cursor is held in the process: nothing is read twice', async () => {
    const { extractor, state } = gatedExtractor();
    const { runner } = setup({ distillTokens: 1 }, extractor, false);
    await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I love jazz.' }] });
    await runner.settle();
    await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I hate olives.' }] });
    await runner.settle();
    const stats = runner.distillationStats()!;
    expect(stats.messages).toBe(2);
    expect(stats.add).toBe(2);
    expect(stats.noop).toBe(0);
    expect(state.calls).toBeGreaterThanOrEqual(2);
  });

  it('distill: false forms nothing and reports null; bad options are refused', async () => {
    const { stack, runner } = setup({ distill: false, distillTokens: 1 });
    const turn = await runner.assembleTurn({ principal: ben, messages: [{ role: 'user', content: 'I love jazz.' }] });
    expect(turn.report.distillation).toBeNull();
    const end = await runner.endSession({ principal: ben, summary: 'jazz' });
    expect(end.distillation).toBeNull();
    expect(await formed(stack, ben, 'jazz')).toEqual([]);
    expect(runner.distillationStats()).toBeNull();
    for (const bad of [{ distill: 'yes' }, { distillTokens: 0 }, { distillTokens: 1.5 }] as RunnerOptions[]) {
      const error = (() => {
        try {
          new Runner(stack, bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(MemError);
      expect((error as MemError).code).toBe('INVALID_INPUT');
    }
  });
});
