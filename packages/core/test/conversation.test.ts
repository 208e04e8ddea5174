import { describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../src/adapters/gpt-tokenizer.js';
import { createInMemoryStructuredStores } from '../src/adapters/in-memory-structured-stores.js';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import type { Logger } from '../src/ports/logger.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import type { Tokenizer } from '../src/ports/tokenizer.js';
import type { TranscriptStore } from '../src/ports/transcript-store.js';
import { Conversation } from '../src/services/conversation/conversation.js';
import { ConversationService } from '../src/services/conversation/service.js';

const realTokenizer = createGptTokenizer();

function countingTokenizer(inner: Tokenizer = realTokenizer): Tokenizer & { calls: number } {
  const t = {
    id: inner.id,
    calls: 0,
    count(text: string) {
      t.calls++;
      return inner.count(text);
    },
  };
  return t;
}

/** Roughly four characters a token: for tests that add 100k messages and must not spend time tokenizing. */
const cheapTokenizer: Tokenizer = { id: 'chars/4', count: (s) => Math.ceil(s.length / 4) };

function recordingLogger(): Logger & { warnings: string[]; infos: string[] } {
  const l = {
    warnings: [] as string[],
    infos: [] as string[],
    info: (m: string) => void l.infos.push(m),
    warn: (m: string) => void l.warnings.push(m),
    error: (m: string) => void l.warnings.push(m),
  };
  return l;
}

/** A store wrapper counting writes, to prove that loading never writes. */
function spyStore(inner: TranscriptStore): TranscriptStore & { writes: number } {
  const s = Object.create(inner) as TranscriptStore & { writes: number };
  s.writes = 0;
  s.append = (...args) => {
    s.writes++;
    return inner.append(...args);
  };
  s.compact = (...args) => {
    s.writes++;
    return inner.compact(...args);
  };
  return s;
}

function setup(
  options: ConstructorParameters<typeof Conversation>[0]['options'] = {},
  extra: Partial<ConstructorParameters<typeof Conversation>[0]> = {},
) {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const store = createInMemoryTranscriptStore();
  const logger = recordingLogger();
  const conv = new Conversation({
    store,
    space: 'acme',
    agentId: 'alice',
    clock,
    logger,
    tokenizer: realTokenizer,
    systemPrompt: 'You are a careful assistant.',
    rules: ['Answer briefly.', 'Cite sources.'],
    options,
    ...extra,
  });
  return { clock, store, logger, conv };
}

describe('Conversation: writing and loading', () => {
  it('writes every message through before add resolves, with the clock time; empty content is skipped', async () => {
    const { conv, store, clock } = setup();
    const m = await conv.add('user', 'Where do we deploy?');
    expect(m).toEqual({ role: 'user', content: 'Where do we deploy?', at: '2026-03-01T12:00:00.000Z' });
    expect((await store.read('acme', 'alice'))?.messages).toEqual([m]);
    clock.advance(1500);
    await conv.add('assistant', 'To eu-west.');
    expect(await conv.add('user', '   \n')).toBeNull();
    const stored = await store.read('acme', 'alice');
    expect(stored?.messages.map((x) => [x.role, x.content, x.at])).toEqual([
      ['user', 'Where do we deploy?', '2026-03-01T12:00:00.000Z'],
      ['assistant', 'To eu-west.', '2026-03-01T12:00:01.500Z'],
    ]);
    expect(await conv.render()).toBe(
      '[2026-03-01T12:00:00.000Z] user: Where do we deploy?\n[2026-03-01T12:00:01.500Z] assistant: To eu-west.',
    );
  });

  it('redacts secrets before writing by default, and can be told not to', async () => {
    const key = `sk-proj-${'a1B2c3D4'.repeat(5)}`;
    const { conv, store } = setup();
    await conv.add('user', `my key is ${key} keep it safe`);
    const stored = (await store.read('acme', 'alice'))!.messages[0]!.content;
    expect(stored).toBe('my key is [REDACTED:openai-api-key] keep it safe');
    expect(await conv.render()).not.toContain(key);
    const raw = setup({ redactSecrets: false });
    await raw.conv.add('user', `my key is ${key}`);
    expect((await raw.store.read('acme', 'alice'))!.messages[0]!.content).toContain(key);
  });

  it('loads the stored transcript as one persistent-memory system message after the system prompt and rules, without writing', async () => {
    const { conv, store, clock } = setup();
    await conv.add('user', 'We chose Postgres.');
    await conv.add('assistant', 'Noted: Postgres.');
    const spy = spyStore(store);
    const again = new Conversation({
      store: spy,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: realTokenizer,
      systemPrompt: 'SYS',
      rules: ['R1'],
    });
    const history = await again.history();
    expect(history.map((h) => h.role)).toEqual(['system', 'system', 'system']);
    expect(history[0]!.content).toBe('SYS');
    expect(history[1]!.content).toBe('## Rules\n\n- R1');
    expect(history[2]!.content).toMatch(/^# Persistent Memory\n/);
    expect(history[2]!.content).toContain(
      '[2026-03-01T12:00:00.000Z] user: We chose Postgres.\n[2026-03-01T12:00:00.000Z] assistant: Noted: Postgres.',
    );
    expect(spy.writes).toBe(0);
    // System prompt and rules are never written to the transcript.
    expect((await store.read('acme', 'alice'))!.messages.map((m) => m.content)).toEqual([
      'We chose Postgres.',
      'Noted: Postgres.',
    ]);
  });

  it('keeps the order of concurrent adds identical in memory and in the store', async () => {
    const { conv, store } = setup();
    await Promise.all(Array.from({ length: 40 }, (_, i) => conv.add(i % 2 ? 'assistant' : 'user', `m${i}`)));
    const stored = (await store.read('acme', 'alice'))!.messages.map((m) => m.content);
    expect(stored).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
    expect((await conv.messages()).map((m) => m.content)).toEqual(stored);
  });

  it('refuses bad names and roles with INVALID_INPUT', async () => {
    const store = createInMemoryTranscriptStore();
    for (const agentId of ['../x', 'a/b', '.hidden', '', 'x'.repeat(81)]) {
      expect(() => new Conversation({ store, space: 'acme', agentId })).toThrowError(MemError);
    }
    const { conv } = setup();
    await expect(conv.add('boss' as never, 'x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('Conversation: context assembly', () => {
  it('orders system prompt → rules → persistent memory → session → recall block → current turn', async () => {
    const { conv, store, clock } = setup();
    await conv.add('user', 'old question');
    const later = new Conversation({
      store,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: realTokenizer,
      systemPrompt: 'SYS',
      rules: ['R1'],
    });
    await later.add('assistant', 'new answer');
    const ctx = await later.context({
      notebook: '<memory>notes</memory>',
      recall: '### Relevant Past Knowledge\n- x',
      turn: 'What next?',
    });
    expect(ctx.messages.map((m) => [m.role, m.content.split('\n')[0]])).toEqual([
      ['system', 'SYS'],
      ['system', '## Rules'],
      ['system', '<memory>notes</memory>'],
      ['system', '# Persistent Memory'],
      ['assistant', '[2026-03-01T12:00:00.000Z] assistant: new answer'],
      ['system', '### Relevant Past Knowledge'],
      ['user', 'What next?'],
    ]);
    expect(ctx.omittedMessages).toBe(0);
    expect(ctx.tokens).toBeGreaterThan(0);
  });

  it('counts each message once: adding never re-tokenizes the history, assembling counts only the new parts', async () => {
    const tok = countingTokenizer();
    const { conv } = setup({}, { tokenizer: tok });
    await conv.load();
    const base = tok.calls;
    for (let i = 0; i < 200; i++) await conv.add('user', `message number ${i} about the deploy window`);
    expect(tok.calls - base).toBe(200);
    const t = conv.tokens();
    conv.needsCompression();
    expect(tok.calls - base).toBe(200);
    const before = tok.calls;
    const ctx = await conv.context({ recall: 'recall block', turn: 'now?' });
    expect(tok.calls - before).toBe(2);
    expect(ctx.tokens).toBe(t + realTokenizer.count('recall block') + realTokenizer.count('now?') + 8);
  });

  it('leaves the oldest messages out when the history does not fit, and says how many', async () => {
    const { conv } = setup({ contextLength: 300 });
    for (let i = 0; i < 60; i++) await conv.add('user', `note ${i}: the quick brown fox jumps`);
    const ctx = await conv.context({ turn: 'go' });
    expect(ctx.omittedMessages).toBeGreaterThan(0);
    expect(ctx.tokens).toBeLessThanOrEqual(300);
    expect(ctx.messages.at(-2)!.content).toContain('note 59:');
    expect(ctx.messages.length).toBe(3 + 60 - ctx.omittedMessages);
  });

  it('assembling context costs about the same at 100k messages as at 1k', async () => {
    async function timeAt(n: number): Promise<number> {
      const store = createInMemoryTranscriptStore();
      const conv = new Conversation({
        store,
        space: 's',
        agentId: 'a',
        tokenizer: cheapTokenizer,
        options: { contextLength: 8_000, redactSecrets: false },
      });
      await conv.addMany(
        Array.from({ length: n }, (_, i) => ({ role: 'user' as const, content: `message ${i} with some words in it` })),
      );
      await conv.context({ turn: 'warm up' });
      // The fastest of several batches: robust against a busy machine.
      let best = Number.POSITIVE_INFINITY;
      for (let batch = 0; batch < 7; batch++) {
        const start = performance.now();
        for (let i = 0; i < 40; i++) await conv.context({ turn: `turn ${i}` });
        best = Math.min(best, performance.now() - start);
      }
      return best;
    }
    const small = await timeAt(1_000);
    const large = await timeAt(100_000);
    // The budget bounds the work, not the history length (a generous bound against timer noise).
    expect(large).toBeLessThan(small * 3 + 20);
  });
});

describe('Conversation: automatic compression', () => {
  const words = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 50}`).join(' ');

  it('fires at the threshold and only then, in a fixed-count loop', async () => {
    const { conv, store } = setup({ contextLength: 1_500 });
    await conv.load();
    const fired: number[] = [];
    for (let i = 0; i < 40; i++) {
      const before = conv.tokens();
      const outcome = await conv.maybeCompress();
      if (before >= 0.9 * 1_500) {
        expect(outcome?.status).toBe('compacted');
        expect(outcome).toMatchObject({ tokensBefore: before });
        expect(conv.tokens()).toBeLessThan(0.9 * 1_500);
        fired.push(i);
      } else {
        expect(outcome).toBeNull();
      }
      await conv.add('user', `question ${i}: ${words(20, i)}`);
      await conv.add('assistant', `answer ${i}: ${words(30, i)}`);
    }
    expect(fired.length).toBeGreaterThanOrEqual(2);
    expect((await store.listArchives('acme', 'alice')).length).toBe(fired.length);
  });

  it('fires at the threshold and only then, in an open-ended loop', async () => {
    const { conv } = setup({ contextLength: 1_200 });
    await conv.load();
    let iterations = 0;
    let compactions = 0;
    let done = false;
    // An agent loop that runs until "the model" decides it is done; tool results vary in size.
    while (!done) {
      const before = conv.tokens();
      const outcome = await conv.maybeCompress();
      expect(outcome !== null).toBe(before >= 0.9 * 1_200);
      if (outcome) compactions++;
      await conv.add('assistant', `calling a tool, step ${iterations}`);
      await conv.add('tool', words(10 + ((iterations * 37) % 60), iterations));
      iterations++;
      done = compactions >= 3 && iterations % 5 === 0;
      expect(iterations).toBeLessThan(500);
    }
    expect(compactions).toBeGreaterThanOrEqual(3);
  });

  it('a failing summariser is logged and keeps the transcript intact', async () => {
    const broken: Summarizer = {
      id: 'broken',
      summarize: async () => {
        throw new Error('model offline');
      },
    };
    const { conv, store, logger } = setup({ contextLength: 400 }, { summarizer: broken });
    for (let i = 0; i < 12; i++) await conv.add('user', `fact ${i}: ${words(12, i)}`);
    const before = await store.read('acme', 'alice');
    const historyBefore = await conv.history();
    const outcome = await conv.maybeCompress();
    expect(outcome).toMatchObject({ status: 'failed', strategy: 'summarize' });
    expect(outcome?.status === 'failed' && outcome.error).toContain('model offline');
    expect(await store.read('acme', 'alice')).toEqual(before);
    expect(await store.listArchives('acme', 'alice')).toEqual([]);
    expect(await conv.history()).toEqual(historyBefore);
    expect(logger.warnings.join('\n')).toMatch(/transcript kept.*model offline/);
    // An empty summary is a failure too; the conversation goes on.
    const empty = setup(
      { contextLength: 400 },
      {
        summarizer: {
          id: 'mute',
          summarize: async () => ({
            summary: ' ',
            usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 },
            summarizer: 'mute',
          }),
        },
      },
    );
    for (let i = 0; i < 12; i++) await empty.conv.add('user', `fact ${i}: ${words(12, i)}`);
    expect(await empty.conv.maybeCompress()).toMatchObject({ status: 'failed' });
    expect((await empty.store.read('acme', 'alice'))!.messages).toHaveLength(12);
    await conv.add('user', 'still works');
  });

  it('compact(summary) archives the transcript, writes a fresh header and one summary block, and rebuilds the history', async () => {
    const { conv, store, clock } = setup();
    await conv.add('user', 'We use Postgres 16.');
    await conv.add('assistant', 'OK.');
    const old = (await store.read('acme', 'alice'))!;
    clock.advance(60_000);
    const r = await conv.compact('Decided: Postgres 16. Open: backups.');
    expect(r.status).toBe('compacted');
    expect(r.archive.id).toBe('history_2026-03-01T12-01-00.000Z');
    expect(await store.readArchive('acme', 'alice', r.archive.id)).toEqual(old);
    const now = (await store.read('acme', 'alice'))!;
    expect(now.header.conversationId).not.toBe(old.header.conversationId);
    expect(now.header.createdAt).toBe('2026-03-01T12:01:00.000Z');
    expect(now.messages).toEqual([
      {
        role: 'system',
        content: '[Compressed Memory Summary]\nDecided: Postgres 16. Open: backups.',
        at: '2026-03-01T12:01:00.000Z',
      },
    ]);
    const history = await conv.history();
    expect(history).toHaveLength(3);
    expect(history[2]!.content).toContain('[Compressed Memory Summary]');
    await expect(conv.compact('  ')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('messages appended by another writer while the summary is written are carried over, not lost', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const store = createInMemoryTranscriptStore();
    const other = new Conversation({ store, space: 'acme', agentId: 'alice', clock, tokenizer: realTokenizer });
    const slow: Summarizer = {
      id: 'slow',
      summarize: async ({ messages }) => {
        await other.add('user', 'written during the summary');
        return {
          summary: `Summary of ${messages.length} messages.`,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          summarizer: 'slow',
        };
      },
    };
    const conv = new Conversation({
      store,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: realTokenizer,
      summarizer: slow,
    });
    await conv.add('user', 'first');
    await conv.add('user', 'second');
    const r = await conv.compress();
    expect(r).toMatchObject({ status: 'compacted', carried: 1 });
    const now = (await store.read('acme', 'alice'))!;
    // The newest turn ("second") stays verbatim after the summary; the other writer's message follows it.
    expect(now.messages.map((m) => m.content)).toEqual([
      '[Compressed Memory Summary]\nSummary of 1 messages.',
      'second',
      'written during the summary',
    ]);
  });

  it('a compaction that lost the race to another writer is skipped and the history reloaded', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const store = createInMemoryTranscriptStore();
    const a = new Conversation({
      store,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: realTokenizer,
      options: { contextLength: 300 },
    });
    for (let i = 0; i < 20; i++) await a.add('user', `message ${i} with a few words`);
    let b!: Conversation;
    const racing: Summarizer = {
      id: 'racing',
      summarize: async () => {
        await b.compact('B compacted first.');
        return {
          summary: 'A summary.',
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          summarizer: 'racing',
        };
      },
    };
    b = new Conversation({ store, space: 'acme', agentId: 'alice', clock, tokenizer: realTokenizer });
    const a2 = new Conversation({
      store,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: realTokenizer,
      summarizer: racing,
      options: { contextLength: 300 },
      logger: recordingLogger(),
    });
    const outcome = await a2.maybeCompress();
    expect(outcome).toMatchObject({ status: 'skipped' });
    expect((await a2.history()).at(-1)!.content).toContain('B compacted first.');
    expect(await store.listArchives('acme', 'alice')).toHaveLength(1);
  });
});

describe('Conversation: other strategies', () => {
  it('sliding window drops the oldest turns into the archive', async () => {
    const { conv, store } = setup({ contextLength: 600, strategy: 'sliding-window', target: 0.5 });
    for (let i = 0; i < 30; i++) {
      await conv.add('user', `question ${i} about the roadmap`);
      await conv.add('assistant', `answer ${i} about the roadmap`);
    }
    const r = await conv.compress();
    expect(r).toMatchObject({ status: 'compacted', strategy: 'sliding-window' });
    const kept = (await store.read('acme', 'alice'))!.messages;
    expect(kept.length).toBeLessThan(60);
    expect(kept[0]!.role).toBe('user');
    expect(kept.at(-1)!.content).toBe('answer 29 about the roadmap');
    expect(conv.tokens()).toBeLessThanOrEqual(0.5 * 600);
    const archive = await store.readArchive('acme', 'alice', (await store.listArchives('acme', 'alice'))[0]!.id);
    expect(archive.messages).toHaveLength(60);
  });

  it('drop-tool-results replaces old large tool results by a one-line placeholder', async () => {
    const { conv, store } = setup({
      contextLength: 4_000,
      strategy: 'drop-tool-results',
      largeToolResultTokens: 200,
      keepRecent: 2,
    });
    await conv.add('user', 'list the files');
    await conv.add('tool', Array.from({ length: 400 }, (_, i) => `file-${i}.txt`).join('\n'));
    await conv.add('assistant', 'There are 400 files.');
    await conv.add('tool', 'small result');
    await conv.add('user', 'and now?');
    await conv.add('tool', Array.from({ length: 300 }, (_, i) => `row-${i}`).join('\n'));
    const r = await conv.compress();
    expect(r).toMatchObject({ status: 'compacted', replacedToolResults: 1, droppedMessages: 0 });
    const now = (await store.read('acme', 'alice'))!.messages;
    expect(now).toHaveLength(6);
    expect(now[1]!.content).toMatch(/^\[old tool result of about \d+ tokens removed to save context/);
    expect(now[3]!.content).toBe('small result');
    expect(now[5]!.content).toContain('row-299');
  });

  it('retention keeps only the newest archives when configured', async () => {
    const { conv, store, clock } = setup({ retention: { maxAgeDays: null, maxCount: 2 } });
    for (let i = 0; i < 4; i++) {
      await conv.add('user', `round ${i}`);
      clock.advance(1000);
      await conv.compact(`summary ${i}`);
    }
    const ids = (await store.listArchives('acme', 'alice')).map((a) => a.id);
    expect(ids).toEqual(['history_2026-03-01T12-00-03.000Z', 'history_2026-03-01T12-00-04.000Z']);
  });
});

describe('ConversationService', () => {
  it('opens conversations per agent with shared defaults, lists agents, forgets', async () => {
    const store = createInMemoryTranscriptStore();
    const service = new ConversationService({ store, tokenizer: realTokenizer, clock: new ManualClock() });
    await service.open({ space: 'acme', agentId: 'alice' }).add('user', 'hi');
    await service.open({ space: 'acme', agentId: 'bob' }).add('user', 'hey');
    await service.open({ space: 'globex', agentId: 'carol' }).add('user', 'yo');
    expect(await service.agents('acme')).toEqual(['alice', 'bob']);
    expect(await service.forget('acme', 'alice')).toEqual({ transcripts: 1, archives: 0 });
    expect(await service.agents('acme')).toEqual(['bob']);
    expect(service.open({ space: 'acme', agentId: 'bob', options: { contextLength: 10 } }).options.contextLength).toBe(
      10,
    );
  });
});

describe('per-agent context settings', () => {
  const setup = (withState = true) => {
    const structured = createInMemoryStructuredStores();
    const service = new ConversationService({
      store: createInMemoryTranscriptStore(),
      settings: withState ? structured.sessionState : undefined,
      tokenizer: cheapTokenizer,
      clock: new ManualClock(new Date('2026-03-01T00:00:00Z')),
      options: { contextLength: 64_000 },
    });
    return { service, state: structured.sessionState };
  };

  it('merge field by field over the service options, and openWithSettings applies them', async () => {
    const { service } = setup();
    expect(await service.contextSettings('s', 'a')).toEqual({
      settings: { contextLength: 64_000, threshold: 0.9, strategy: 'summarize' },
      stored: {},
    });
    await service.setContextSettings('s', 'a', { contextLength: 1_000, threshold: 0.5 });
    const r = await service.setContextSettings('s', 'a', { strategy: 'sliding-window' });
    expect(r.settings).toEqual({ contextLength: 1_000, threshold: 0.5, strategy: 'sliding-window' });
    expect((await service.contextSettings('s', 'b')).stored).toEqual({});
    expect((await service.contextSettings('other-space', 'a')).stored).toEqual({});

    const convo = await service.openWithSettings({ space: 's', agentId: 'a' });
    const plain = service.open({ space: 's', agentId: 'a' });
    await convo.add('user', 'x'.repeat(2_400)); // ~600 tokens: over 0.5 × 1,000, far under 0.9 × 64,000
    await plain.reload();
    expect(convo.needsCompression()).toBe(true);
    expect(plain.needsCompression()).toBe(false);
    // Per-call options still win over the stored ones.
    const wide = await service.openWithSettings({ space: 's', agentId: 'a', options: { contextLength: 1_000_000 } });
    await wide.reload();
    expect(wide.needsCompression()).toBe(false);
  });

  it('refuse bad values with INVALID_INPUT and store nothing; ignore a hand-broken row; need a store', async () => {
    const { service, state } = setup();
    await service.setContextSettings('s', 'a', { threshold: 0.7 });
    for (const bad of [{ threshold: 0 }, { threshold: 2 }, { contextLength: -5 }, { strategy: 'nope' }, { x: 1 }]) {
      const error = await service.setContextSettings('s', 'a', bad).catch((e: unknown) => e);
      expect(MemError.is(error, 'INVALID_INPUT'), JSON.stringify(bad)).toBe(true);
    }
    await expect(service.setContextSettings('s', '../x', { threshold: 0.5 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect((await service.contextSettings('s', 'a')).stored).toEqual({ threshold: 0.7 });
    await state.set('s', '.context-settings/a', { threshold: 'high' }, '2026-03-01T00:00:00Z');
    expect((await service.contextSettings('s', 'a')).settings.threshold).toBe(0.9);

    const error = await setup(false)
      .service.setContextSettings('s', 'a', { threshold: 0.5 })
      .catch((e: unknown) => e);
    expect(MemError.is(error, 'CAPABILITY_MISSING')).toBe(true);
  });
});

describe('ConversationService.popLast', () => {
  it('takes back the newest message, keeps the transcript before as an archive at the clock time, and answers undefined when empty', async () => {
    const store = createInMemoryTranscriptStore();
    const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
    const service = new ConversationService({ store, clock, tokenizer: cheapTokenizer });
    expect(await service.popLast('acme', 'coder')).toBeUndefined();
    const convo = service.open({ space: 'acme', agentId: 'coder' });
    await convo.add('user', 'first');
    await convo.add('assistant', 'second');
    clock.advance(60_000);
    const popped = await service.popLast('acme', 'coder');
    expect(popped).toMatchObject({ role: 'assistant', content: 'second' });
    const left = await store.read('acme', 'coder');
    expect(left!.messages.map((m) => m.content)).toEqual(['first']);
    const archives = await service.archives('acme', 'coder');
    expect(archives.map((a) => a.archivedAt)).toEqual(['2026-05-01T10:01:00.000Z']);
    expect((await service.readArchive('acme', 'coder', archives[0]!.id)).messages.map((m) => m.content)).toEqual([
      'first',
      'second',
    ]);
    const e = await service.popLast('acme', '../x').catch((error: unknown) => error);
    expect(MemError.is(e, 'INVALID_INPUT')).toBe(true);
  });
});
