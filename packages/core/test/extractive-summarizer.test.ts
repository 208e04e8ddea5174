/**
 * The extractive summariser: the conversation's own sentences, chosen for what they hold (names, numbers, dates,
 * decisions, the words the conversation returns to), within a budget, without nesting earlier summaries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/adapters/extractive-summarizer.js';
import { defaultTokenizer } from '../src/adapters/gpt-tokenizer.js';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { summaryMessage } from '../src/domain/compaction.js';
import { lowerCaseWords, salientItems, splitSentences } from '../src/domain/salient.js';
import { SUMMARY_MARKER } from '../src/domain/transcript-format.js';
import { ManualClock } from '../src/ports/clock.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { TranscriptMessage } from '../src/ports/transcript-store.js';
import { Conversation } from '../src/services/conversation/conversation.js';

const at = (day: number) => `2026-03-${String(day).padStart(2, '0')}T10:00:00.000Z`;
const msg = (role: TranscriptMessage['role'], content: string, day = 1): TranscriptMessage => ({
  role,
  content,
  at: at(day),
});
const tokens = (s: string) => defaultTokenizer().count(s);

/** A planning conversation: a few sentences that matter among small talk. */
const planning: TranscriptMessage[] = [
  msg('user', 'Hi! How are you today?'),
  msg('assistant', "Hello! I'm fine, thanks. What can I do for you?"),
  msg('user', 'We are moving the Berlin launch. The new date is 14 March 2026, and the budget is 42,000 euros.'),
  msg('assistant', 'Understood. Shall I tell the team?'),
  msg('user', 'Yes. Priya owns the venue and Tomasz owns the press list. We decided to drop the Paris stop.'),
  msg('assistant', 'Okay, great.'),
  msg('user', 'Haha, cool. Thanks a lot!'),
  msg('assistant', 'Anytime! Have a nice day.'),
  msg('user', 'One more thing: invoices go to finance@acme.example by Friday.'),
  msg('assistant', 'Noted, thanks.'),
];

describe('the extractive summariser', () => {
  it('keeps the names, numbers, dates and decisions, leaves out the small talk, in the order said', async () => {
    const r = await createExtractiveSummarizer().summarize({ messages: planning, maxTokens: 90 });
    expect(r.summarizer).toBe('extractive');
    expect(r.usage.totalTokens).toBe(0);
    expect(tokens(r.summary)).toBeLessThanOrEqual(90);
    for (const kept of ['Berlin', '14 March 2026', '42,000', 'Priya', 'Tomasz', 'drop the Paris stop', 'Friday']) {
      expect(r.summary).toContain(kept);
    }
    expect(r.summary).not.toMatch(/Have a nice day|Haha|How are you/);
    const lines = r.summary.split('\n');
    expect(lines.every((l) => l.startsWith('- [user]: ') || l.startsWith('- [assistant]: '))).toBe(true);
    expect(r.summary.indexOf('Berlin')).toBeLessThan(r.summary.indexOf('Priya'));
    expect(r.summary.indexOf('Priya')).toBeLessThan(r.summary.indexOf('Friday'));
  });

  it('keeps to the lower of its own limit and the caller’s, and to a share of the input', async () => {
    const long = Array.from({ length: 60 }, (_, i) =>
      msg(
        i % 2 ? 'assistant' : 'user',
        `Item ${i}: the crate for Order ${1000 + i} ships from Dock ${i % 7} on Monday.`,
      ),
    );
    for (const [opts, input, most] of [
      [{ maxTokens: 50 }, { maxTokens: 500 }, 50],
      [{}, { maxTokens: 80 }, 80],
      [{ ratio: 0.1 }, {}, Math.max(128, 0.1 * long.reduce((t, m) => t + tokens(m.content), 0))],
    ] as const) {
      const r = await createExtractiveSummarizer(opts).summarize({ messages: long, ...input });
      expect(tokens(r.summary)).toBeLessThanOrEqual(most);
      expect(tokens(r.summary)).toBeGreaterThan(most / 2);
    }
  });

  it('dates each line when the messages span several days', async () => {
    const r = await createExtractiveSummarizer().summarize({
      messages: [
        msg('user', 'The audit with Deloitte starts Tuesday.', 2),
        msg('user', 'Kim will bring 3 laptops.', 5),
      ],
    });
    expect(r.summary).toBe(
      '- [user, 2026-03-02]: The audit with Deloitte starts Tuesday.\n- [user, 2026-03-05]: Kim will bring 3 laptops.',
    );
  });

  it('summarising a summary never nests its header and keeps what it held', async () => {
    const s = createExtractiveSummarizer({ maxTokens: 80 });
    let messages = planning;
    for (let pass = 0; pass < 5; pass++) {
      const r = await s.summarize({ messages });
      expect(r.summary).not.toContain(SUMMARY_MARKER);
      expect(tokens(r.summary)).toBeLessThanOrEqual(80);
      messages = [
        summaryMessage(r.summary, at(10 + pass)),
        msg('user', `Pass ${pass}: nothing new, thanks.`, 10 + pass),
        msg('assistant', 'Okay!', 10 + pass),
      ];
    }
    const last = (await s.summarize({ messages })).summary;
    for (const kept of ['14 March 2026', '42,000', 'Priya', 'Friday']) expect(last).toContain(kept);
    expect(last).not.toContain('Pass');
    expect(last.split('\n').some((l) => l.startsWith('- - '))).toBe(false);
  });

  it("reads a framework's message items as their text, never as JSON", async () => {
    const item = (role: string, text: string) =>
      JSON.stringify({
        type: 'message',
        role,
        content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }],
      });
    const r = await createExtractiveSummarizer().summarize({
      messages: [
        msg('user', item('user', 'Book the flight to Lisbon on 3 May for Ana.')),
        msg('assistant', item('assistant', 'Booked flight TP 1337 to Lisbon.')),
        msg(
          'tool',
          JSON.stringify({ type: 'function_call_result', output: { type: 'text', text: 'seat 14C confirmed' } }),
        ),
      ],
    });
    expect(r.summary).toContain('Lisbon');
    expect(r.summary).toContain('14C');
    expect(r.summary).not.toMatch(/[{}"]|input_text|function_call/);
  });

  it('with an embedder: sentences embedded, its usage reported; a failing embedder leaves the keywords to decide', async () => {
    const hashing = createHashingEmbedder({ dimension: 64 });
    const seen: number[] = [];
    const paid: Embedder = {
      id: 'paid',
      dimension: 64,
      embed: (t) => hashing.embed(t),
      async embedWithUsage(texts) {
        seen.push(texts.length);
        return { vectors: await hashing.embed(texts), usage: { inputTokens: 9, outputTokens: 0, totalTokens: 9 } };
      },
    };
    const r = await createExtractiveSummarizer({ embedder: paid, maxEmbedded: 5 }).summarize({ messages: planning });
    expect(seen).toEqual([5]);
    expect(r.usage.totalTokens).toBe(9);
    expect(r.fallback).toBeUndefined();
    expect(r.summary).toContain('Berlin');
    const broken: Embedder = { id: 'down', dimension: 64, embed: () => Promise.reject(new Error('model gone')) };
    const b = await createExtractiveSummarizer({ embedder: broken }).summarize({ messages: planning });
    expect(b.fallback).toEqual({
      from: 'extractive',
      reason: expect.stringContaining('embedder "down" failed (model gone)'),
    });
    expect(b.summary).toContain('Berlin');
  });

  it('never fails: only small talk, one huge sentence, or nothing but punctuation still gives a summary in budget', async () => {
    const s = createExtractiveSummarizer({ maxTokens: 40 });
    const small = await s.summarize({ messages: [msg('user', 'ok'), msg('assistant', 'ok!')] });
    expect(small.summary).toBe('- ok!');
    const huge = await s.summarize({ messages: [msg('tool', `${'x'.repeat(300_000)} end`)] });
    expect(tokens(huge.summary)).toBeLessThanOrEqual(40);
    expect(huge.summary.length).toBeGreaterThan(10);
    const dots = await s.summarize({
      messages: [msg('user', '. '.repeat(50_000)), msg('user', 'Dr. '.repeat(20_000))],
    });
    expect(tokens(dots.summary)).toBeLessThanOrEqual(40);
  });

  it('property: in budget, no header, every kept piece said in the conversation', async () => {
    const sentence = fc
      .array(fc.constantFrom('Ana', 'the', 'launch', '42', 'May', 'moved', 'we', 'decided', 'ok', 'Berlin', 'budget'), {
        minLength: 1,
        maxLength: 12,
      })
      .map((w) => `${w.join(' ')}.`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.constantFrom('user', 'assistant', 'tool'), fc.array(sentence, { minLength: 1, maxLength: 4 })),
          {
            minLength: 1,
            maxLength: 25,
          },
        ),
        fc.integer({ min: 16, max: 300 }),
        async (raw, budget) => {
          const messages = raw.map(([role, ss], i) =>
            msg(role as TranscriptMessage['role'], ss.join(' '), 1 + (i % 3)),
          );
          const { summary } = await createExtractiveSummarizer({ maxTokens: budget }).summarize({ messages });
          expect(tokens(summary)).toBeLessThanOrEqual(budget);
          expect(summary).not.toContain(SUMMARY_MARKER);
          const said = messages.map((m) => m.content).join(' ');
          for (const line of summary.split('\n')) {
            const body = line.replace(/^- (\[[^\]]+\]: )?/, '').replace(/…$/, '');
            for (const piece of body.split(' … ')) expect(said).toContain(piece);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("is a conversation's default: compaction writes an extractive summary", async () => {
    const conv = new Conversation({
      store: createInMemoryTranscriptStore(),
      space: 's',
      agentId: 'a',
      clock: new ManualClock(at(20)),
      options: { contextLength: 400, threshold: 0.5, target: 0.5 },
    });
    for (const m of planning) await conv.add(m.role, m.content);
    const outcome = await conv.maybeCompress();
    expect(outcome).toMatchObject({ status: 'compacted', summarizer: 'extractive' });
    const head = (await conv.messages())[0]!.content;
    expect(head.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(head).toContain('Berlin');
  });
});

describe('sentences and what they hold', () => {
  it('splits at sentence ends and lines, not after abbreviations or initials, and cuts long runs', () => {
    expect(splitSentences('Dr. Lee met J. Smith. Then we left!\nNew line? yes')).toEqual([
      'Dr. Lee met J. Smith.',
      'Then we left!',
      'New line?',
      'yes',
    ]);
    const cut = splitSentences(`${'word '.repeat(200)}`, 100);
    expect(cut.every((s) => s.length <= 100)).toBe(true);
    expect(cut.join(' ')).toBe('word '.repeat(200).trim());
  });

  it('finds names, numbers, dates and decisions; a capitalised first word only when the text never uses it in lower case', () => {
    const lower = lowerCaseWords(['sure, yesterday we went', 'Melanie said so']);
    expect(salientItems('Melanie met Priya in May 2023 and paid 40 dollars.', lower)).toEqual({
      items: ['name:melanie', 'name:priya', 'date:may', 'date:2023', 'number:40'],
      decision: false,
    });
    expect(salientItems('Sure, we may go.', lower)).toEqual({ items: [], decision: false });
    expect(salientItems('Yesterday we decided to switch to Postgres.', lower)).toEqual({
      items: ['date:yesterday', 'name:postgres'],
      decision: true,
    });
  });
});
