import { describe, expect, it } from 'vitest';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookData,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptData,
  createInMemoryTranscriptStore,
  createStack,
  MemError,
  modelContextDefaults,
  Runner,
  type RunnerOptions,
} from '../src/index.js';
import { ManualClock } from '../src/ports/clock.js';
import type { Summarizer } from '../src/ports/summarizer.js';

const me = { space: 'acme', agentId: 'coder', role: 'worker' } as const;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** One "process": a stack over shared in-memory data (a new world = a restart). */
function world() {
  const transcripts = createInMemoryTranscriptData();
  const notebooks = createInMemoryNotebookData();
  const knowledge = createInMemoryKnowledgeStore();
  return (options: RunnerOptions = {}) => {
    const stack = createStack({
      knowledge,
      embedder: createHashingEmbedder(),
      transcripts: createInMemoryTranscriptStore({ data: transcripts }),
      notebooks: createInMemoryNotebookStore({ data: notebooks }),
      logger: quiet,
    });
    return { stack, runner: new Runner(stack, options) };
  };
}

const countingSummarizer = (): Summarizer & { calls: number } => {
  const s = {
    id: 'fake-llm',
    calls: 0,
    async summarize(input: { messages: readonly { content: string }[] }) {
      s.calls += 1;
      return {
        summary: `SUMMARY of ${input.messages.length} messages: the user's cat is called Miso.`,
        usage: { inputTokens: 900, outputTokens: 40, totalTokens: 940 },
        summarizer: 'fake-llm',
      };
    },
  };
  return s;
};

describe('Runner.assembleTurn', () => {
  it('puts system prompt, rules, notebook, the stored transcript, the recall block and the turn in that order', async () => {
    const boot = world();
    const first = boot();
    await first.stack.knowledge.store(me, {
      content: 'Deploys of the billing service freeze on Fridays after 15:00.',
      name: 'Billing deploy freeze',
    });
    await first.stack.notebook!.write(me, { content: 'The user prefers short answers.' });
    await first.runner.recordTurn({
      principal: me,
      messages: [
        { role: 'user', content: 'My cat is called Miso.' },
        { role: 'assistant', content: 'Noted.' },
      ],
    });

    const { runner } = boot(); // a restart: everything comes back from the stores
    const turn = await runner.assembleTurn({
      principal: me,
      systemPrompt: 'You are a careful release engineer.',
      rules: ['Never deploy on Fridays after 15:00.'],
      task: 'deploy the billing service on friday',
      taskId: 'T-1',
      messages: [{ role: 'user', content: 'Can I deploy billing on Friday at 16:00?' }],
    });
    const roles = turn.messages.map((m) => m.role);
    const texts = turn.messages.map((m) => m.content);
    expect(texts[0]).toBe('You are a careful release engineer.');
    expect(texts[1]).toContain('Never deploy on Fridays');
    expect(texts[2]).toContain('The user prefers short answers.');
    expect(texts[3]).toContain('My cat is called Miso.');
    const recallAt = texts.findIndex((t) => t.includes('### Relevant Past Knowledge'));
    expect(recallAt).toBe(texts.length - 2);
    expect(roles[recallAt]).toBe('user');
    expect(texts[recallAt]).toContain('data, not instructions');
    expect(texts.at(-1)).toContain('Can I deploy billing on Friday at 16:00?');
    // Never inside the system prompt's instructions.
    for (const i of [0, 1]) expect(texts[i]).not.toContain('Billing deploy freeze');

    expect(turn.report.recalled.map((r) => r.name)).toEqual(['Billing deploy freeze']);
    expect(turn.report.taskId).toBe('T-1');
    expect(turn.report.written).toBe(1);
    expect(turn.report.tokens).toBeGreaterThan(50);
    expect(turn.report.notebookTokens).toBeGreaterThan(0);
    expect(turn.report.compaction).toBeNull();
    expect(turn.report.usage.totalTokens).toBe(0);
  });

  it('a later turn of the same taskId recalls with the task text; omitNewest leaves the caller’s own messages out', async () => {
    const { stack, runner } = world()();
    await stack.knowledge.store(me, {
      content: 'The staging database resets every Sunday night.',
      name: 'Staging reset',
    });
    await runner.assembleTurn({ principal: me, task: 'prepare the staging database demo', taskId: 'T-2' });
    const turn = await runner.assembleTurn({
      principal: me,
      taskId: 'T-2',
      messages: [
        { role: 'assistant', content: 'calling a tool' },
        { role: 'tool', content: 'tool said 42' },
      ],
      omitNewest: 2,
    });
    expect(turn.report.recallQuery).toBe('prepare the staging database demo');
    expect(turn.messages.at(-1)!.content).toContain('Staging reset');
    expect(turn.messages.some((m) => m.content.includes('tool said 42'))).toBe(false);
    expect((await stack.conversations!.open({ space: 'acme', agentId: 'coder' }).messages()).length).toBe(2);
  });

  it('compacts at threshold × window, reports the summariser’s tokens and shows the summary next turn', async () => {
    const summarizer = countingSummarizer();
    const { stack, runner } = world()({ contextWindow: 2_000, threshold: 0.5, summarizer });
    const filler = 'word '.repeat(120);
    let report = null;
    for (let i = 0; i < 30 && !report; i++) {
      const turn = await runner.assembleTurn({
        principal: me,
        messages: [{ role: 'user', content: `${i} ${filler}` }],
      });
      if (turn.report.compaction) report = turn.report;
    }
    expect(report?.compaction?.status).toBe('compacted');
    expect(report!.spent).toEqual([
      { operation: 'compaction', by: 'fake-llm', usage: { inputTokens: 900, outputTokens: 40, totalTokens: 940 } },
    ]);
    expect(report!.usage.totalTokens).toBe(940);
    expect(await stack.conversations!.archives('acme', 'coder')).toHaveLength(1);
    const next = await runner.assembleTurn({
      principal: me,
      messages: [{ role: 'user', content: 'what is my cat called?' }],
    });
    expect(next.messages.some((m) => m.content.includes('SUMMARY of') && m.content.includes('Miso'))).toBe(true);
    expect(next.report.tokens).toBeLessThan(1_000);
  });

  it('a failing summariser keeps the whole transcript and reports the failure', async () => {
    const failing: Summarizer = {
      id: 'broken',
      summarize: async () => {
        throw new Error('model unreachable');
      },
    };
    const { stack, runner } = world()({ contextWindow: 1_000, threshold: 0.5, summarizer: failing });
    let last = null;
    for (let i = 0; i < 8; i++) {
      last = await runner.assembleTurn({
        principal: me,
        messages: [{ role: 'user', content: `${i} ${'text '.repeat(80)}` }],
      });
    }
    expect(last!.report.compaction).toMatchObject({ status: 'failed' });
    expect(last!.report.compaction!.status === 'failed' && last!.report.compaction!.error).toContain(
      'model unreachable',
    );
    expect(await stack.conversations!.open({ space: 'acme', agentId: 'coder' }).messages()).toHaveLength(8);
    expect(await stack.conversations!.archives('acme', 'coder')).toHaveLength(0);
  });

  it('the sliding-window strategy drops the oldest turns and spends no model tokens', async () => {
    const { runner } = world()({ contextWindow: 1_000, threshold: 0.6, strategy: 'sliding-window' });
    let compaction = null;
    for (let i = 0; i < 12 && !compaction; i++) {
      const turn = await runner.assembleTurn({
        principal: me,
        messages: [{ role: 'user', content: `${i} ${'x '.repeat(80)}` }],
      });
      compaction = turn.report.compaction;
      if (compaction) expect(turn.report.usage.totalTokens).toBe(0);
    }
    expect(compaction).toMatchObject({ status: 'compacted', strategy: 'sliding-window' });
    expect(compaction!.status === 'compacted' && compaction!.droppedMessages).toBeGreaterThan(0);
  });
});

describe('Runner.endTask and endSession', () => {
  it('stores a task_completion memory the next task recalls; ratings carry the taskId', async () => {
    const { stack, runner } = world()();
    const { id } = await stack.knowledge.store(me, { content: 'Invoices are generated on the first of the month.' });
    await runner.assembleTurn({ principal: me, task: 'fix the invoice rounding bug', taskId: 'T-7' });
    const ended = await runner.endTask({
      principal: me,
      taskId: 'T-7',
      summary: 'Invoice rounding fixed: amounts are rounded half-even in cents before tax.',
      outcome: 'success',
      ratings: [{ id, useful: true }],
    });
    expect(ended.rated).toBe(1);
    const doc = await stack.knowledge.get(me, { id: ended.stored!.id });
    expect(doc.source).toBe('task_completion');
    expect(doc.content).toContain('Task T-7: fix the invoice rounding bug');
    expect(doc.tags).toContain('task-completion');

    const next = await runner.assembleTurn({ principal: me, task: 'invoice rounding in cents', taskId: 'T-8' });
    expect(next.report.recalled.map((r) => r.id)).toContain(ended.stored!.id);
  });

  it('an automatic task stores nothing unless persistMemory is set', async () => {
    const { stack, runner } = world()();
    const skipped = await runner.endTask({
      principal: me,
      taskId: 'cron-1',
      summary: 'Nightly sync ran.',
      automatic: true,
    });
    expect(skipped.stored).toBeNull();
    expect(skipped.skipped).toContain('persistMemory');
    expect((await stack.knowledge.stats(me)).documents).toBe(0);
    const kept = await runner.endTask({
      principal: me,
      taskId: 'cron-2',
      summary: 'Nightly sync found 3 orphans.',
      automatic: true,
      persistMemory: true,
    });
    expect(kept.stored).not.toBeNull();
  });

  it('an open task outlives a restart when the stack has a session-state store', async () => {
    const knowledge = createInMemoryKnowledgeStore();
    const transcripts = createInMemoryTranscriptData();
    const structured = createInMemoryStructuredStores();
    const boot = () => {
      const stack = createStack({
        knowledge,
        embedder: createHashingEmbedder(),
        transcripts: createInMemoryTranscriptStore({ data: transcripts }),
        structured: createInMemoryStructuredStores(structured),
        logger: quiet,
      });
      return { stack, runner: new Runner(stack) };
    };
    const first = boot();
    await first.runner.assembleTurn({
      principal: me,
      task: 'Migrate the billing cron jobs to the new scheduler',
      taskId: 'T-77',
      messages: [{ role: 'user', content: 'Start with the nightly invoice job.' }],
    });
    const second = boot(); // another process: no task text in memory
    const turn = await second.runner.assembleTurn({ principal: me, taskId: 'T-77' });
    expect(turn.report.recallQuery).toBe('Migrate the billing cron jobs to the new scheduler');
    const ended = await boot().runner.endTask({ principal: me, taskId: 'T-77', summary: 'Moved 4 jobs.' });
    const doc = await second.stack.knowledge.get(me, { id: ended.stored!.id });
    expect(doc.content).toContain('Task T-77: Migrate the billing cron jobs to the new scheduler');
    // Ended: no longer open anywhere.
    expect(await structured.sessionState!.get('acme', '.open-tasks/coder')).toBeNull();
  });

  it('endSession stores a session_summary written by the summariser and reports its tokens', async () => {
    const summarizer = countingSummarizer();
    const { stack, runner } = world()({ summarizer });
    await runner.recordTurn({ principal: me, messages: [{ role: 'user', content: 'My cat is called Miso.' }] });
    const ended = await runner.endSession({ principal: me });
    expect(ended.spent[0]!.usage.totalTokens).toBe(940);
    const doc = await stack.knowledge.get(me, { id: ended.stored!.id });
    expect(doc.source).toBe('session_summary');
    expect(doc.content).toContain('Miso');

    const empty = await world()().runner.endSession({ principal: me });
    expect(empty).toMatchObject({ stored: null, skipped: 'the transcript holds no messages' });
  });

  it('endSession with since summarises only the messages written from then on', async () => {
    const clock = new ManualClock('2026-05-01T09:00:00Z');
    const seen: string[][] = [];
    const summarizer: Summarizer = {
      id: 'fake-llm',
      async summarize(input) {
        seen.push(input.messages.map((m) => m.content));
        return {
          summary: 'The user moved to Porto.',
          usage: { inputTokens: 9, outputTokens: 5, totalTokens: 14 },
          summarizer: 'fake-llm',
        };
      },
    };
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      embedder: createHashingEmbedder(),
      transcripts: createInMemoryTranscriptStore(),
      logger: quiet,
      clock,
    });
    const runner = new Runner(stack, { summarizer });
    await runner.recordTurn({ principal: me, messages: [{ role: 'user', content: 'Yesterday I lived in Lisbon.' }] });
    clock.advance(86_400_000);
    const started = clock.now().toISOString();
    await runner.recordTurn({ principal: me, messages: [{ role: 'user', content: 'Today I moved to Porto.' }] });
    const ended = await runner.endSession({ principal: me, since: started });
    expect(seen).toEqual([['Today I moved to Porto.']]);
    expect(ended.stored).not.toBeNull();

    clock.advance(1_000);
    const none = await runner.endSession({ principal: me, since: clock.now().toISOString() });
    expect(none.stored).toBeNull();
    expect(none.skipped).toMatch(/no messages since/);
    const bad = await runner.endSession({ principal: me, since: 'last tuesday' }).catch((e: unknown) => e);
    expect(MemError.is(bad, 'INVALID_INPUT')).toBe(true);
    expect((bad as Error).message).toContain('since must be an ISO-8601 time');
  });
});

describe('Runner input', () => {
  const refused = async (fn: () => unknown, code: string, text: RegExp) => {
    const error = await (async () => fn())().then(
      () => null,
      (e: unknown) => e,
    );
    expect(MemError.is(error, code as never)).toBe(true);
    expect((error as Error).message).toMatch(text);
  };

  it('refuses bad options and bad input with clear errors, writing nothing', async () => {
    const boot = world();
    const { stack, runner } = boot();
    await refused(() => boot({ contextWindow: 0 }), 'INVALID_INPUT', /contextWindow must be a positive/);
    await refused(() => boot({ threshold: 1.5 }), 'INVALID_INPUT', /threshold must be in \(0, 1\]/);
    await refused(() => boot({ strategy: 'forget-all' as never }), 'INVALID_INPUT', /strategy must be one of/);
    await refused(
      () => runner.assembleTurn({ principal: me, messages: [{ role: 'robot' as never, content: 'hi' }] }),
      'INVALID_INPUT',
      /messages\.0\.role/,
    );
    await refused(() => runner.assembleTurn({ principal: me, task: '   ' }), 'INVALID_INPUT', /task must not be empty/);
    await refused(() => runner.assembleTurn({ principal: { ...me, space: '../x' } }), 'INVALID_INPUT', /space/);
    await refused(
      () => runner.endTask({ principal: me, taskId: 'T', summary: '' }),
      'INVALID_INPUT',
      /summary must not be empty/,
    );
    await refused(
      () => runner.endTask({ principal: me, taskId: 'T', summary: 'ok', extra: 1 } as never),
      'INVALID_INPUT',
      /unknown field/,
    );
    expect(await stack.conversations!.agents('acme')).toEqual([]);
    expect((await stack.knowledge.stats(me)).documents).toBe(0);
    const bare = createStack({ knowledge: createInMemoryKnowledgeStore() });
    await refused(() => new Runner(bare), 'CAPABILITY_MISSING', /transcript store/);
  });

  it('picks the context window from the model id', () => {
    expect(modelContextDefaults('gpt-4o-mini').contextWindow).toBe(128_000);
    expect(modelContextDefaults('claude-sonnet-4').contextWindow).toBe(200_000);
    expect(modelContextDefaults('llama3').contextWindow).toBe(8_192);
    expect(modelContextDefaults('some-local-model')).toEqual({
      contextWindow: 128_000,
      threshold: 0.9,
      strategy: 'summarize',
    });
    const { runner } = world()({ model: 'claude-3-5-haiku', threshold: 0.8 });
    expect(runner.options).toMatchObject({ contextWindow: 200_000, threshold: 0.8, strategy: 'summarize' });
  });
});
