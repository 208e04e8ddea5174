/**
 * The budget is the whole prompt: compaction fires on what will be sent (system prompt, rules, notebook, recall
 * block, tool definitions and the transcript), and the assembled prompt never drops the summary or the newest turn.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { isSummaryMessage } from '../src/domain/compaction.js';
import { ManualClock } from '../src/ports/clock.js';
import type { Logger } from '../src/ports/logger.js';
import type { Tokenizer } from '../src/ports/tokenizer.js';
import { Conversation } from '../src/services/conversation/conversation.js';

/** Four characters a token, so that a test can size every part exactly. */
const tokenizer: Tokenizer = { id: 'chars/4', count: (s) => Math.ceil(s.length / 4) };
const OVERHEAD = 4;

/** A text of about `tokens` tokens, tagged so that the test can find it in a prompt. */
const text = (tag: string, tokens: number) => `${tag} ${'word '.repeat(Math.max(0, Math.round((tokens * 4) / 5) - 2))}`;

function warnings(): Logger & { seen: string[] } {
  const seen: string[] = [];
  return { seen, info() {}, warn: (m: string) => void seen.push(m), error() {} };
}

/** Tokens of the prompt as sent, counted independently of the conversation's running totals. */
const recount = (messages: readonly { content: string }[]) =>
  messages.reduce((t, m) => t + tokenizer.count(m.content) + OVERHEAD, 0);

describe('the budget is the whole prompt', () => {
  it('a large notebook and recall block make compaction fire before the history is left out (the reported case)', async () => {
    const log = warnings();
    const conv = new Conversation({
      store: createInMemoryTranscriptStore(),
      space: 'acme',
      agentId: 'alice',
      clock: new ManualClock('2026-03-01T12:00:00.000Z'),
      tokenizer,
      logger: log,
      systemPrompt: text('SYSTEM', 60),
      options: { contextLength: 1_000, threshold: 0.9 },
    });
    const prompt = { notebook: text('NOTEBOOK', 487), recall: text('RECALL', 200) };
    let compactions = 0;
    for (let turn = 1; turn <= 8; turn++) {
      await conv.add('user', text(`USER${turn}`, 40));
      if ((await conv.maybeCompress(prompt))?.status === 'compacted') compactions++;
      const ctx = await conv.context(prompt);
      const sent = ctx.messages.map((m) => m.content).join('\n');
      // The newest turn, the notebook and the recall block are all in the prompt, and it fits.
      expect(sent).toContain(`USER${turn}`);
      expect(sent).toContain('NOTEBOOK');
      expect(sent).toContain('RECALL');
      expect(ctx.leftOut).toEqual({ messages: 0, recall: false, notebook: false });
      expect(recount(ctx.messages)).toBeLessThanOrEqual(1_000);
      await conv.add('assistant', text(`ANSWER${turn}`, 30));
    }
    expect(compactions).toBeGreaterThan(0);
    const stored = await conv.messages();
    expect(isSummaryMessage(stored[0]!)).toBe(true);
    expect(log.seen).toEqual([]);
  });

  it('tool definitions count toward the threshold and the budget', async () => {
    const conv = new Conversation({
      store: createInMemoryTranscriptStore(),
      space: 'acme',
      agentId: 'alice',
      tokenizer,
      logger: warnings(),
      options: { contextLength: 1_000, threshold: 0.9 },
    });
    await conv.add('user', text('OLD', 300));
    await conv.add('assistant', text('REPLY', 200));
    await conv.add('user', text('NEW', 50));
    expect(conv.needsCompression()).toBe(false);
    const tools = [{ name: 'search', description: text('TOOL', 400), inputSchema: { type: 'object' } }];
    expect(conv.needsCompression({ tools })).toBe(true);
    const ctx = await conv.context({ tools });
    expect(ctx.toolTokens).toBeGreaterThan(390);
    expect(recount(ctx.messages) + ctx.toolTokens).toBeLessThanOrEqual(1_000);
    await expect(conv.context({ tools: 'search' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('when the newest turn does not fit, the recall block goes first, then the notebook, and it says so', async () => {
    const log = warnings();
    const conv = new Conversation({
      store: createInMemoryTranscriptStore(),
      space: 'acme',
      agentId: 'alice',
      tokenizer,
      logger: log,
      options: { contextLength: 1_000 },
    });
    await conv.add('user', text('HUGE', 600));
    const ctx = await conv.context({ notebook: text('NOTEBOOK', 250), recall: text('RECALL', 250) });
    const sent = ctx.messages.map((m) => m.content).join('\n');
    expect(sent).toContain('HUGE');
    expect(sent).toContain('NOTEBOOK');
    expect(sent).not.toContain('RECALL');
    expect(ctx.leftOut).toEqual({ messages: 0, recall: true, notebook: false });
    expect(ctx.overBudget).toBe(false);
    expect(log.seen.join('\n')).toMatch(/left out the recall block/);
  });

  it('property: over random windows, prompts, notebooks, recalls and turns the prompt fits and keeps the summary and the newest turn', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          window: fc.integer({ min: 300, max: 4_000 }),
          threshold: fc.double({ min: 0.5, max: 0.95, noNaN: true }),
          strategy: fc.constantFrom('summarize', 'sliding-window', 'drop-tool-results'),
          system: fc.double({ min: 0, max: 0.15, noNaN: true }),
          reserve: fc.double({ min: 0, max: 0.1, noNaN: true }),
          tools: fc.double({ min: 0, max: 0.1, noNaN: true }),
          turns: fc.array(
            fc.record({
              user: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
              answer: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
              notebook: fc.double({ min: 0, max: 0.4, noNaN: true }),
              recall: fc.double({ min: 0, max: 0.4, noNaN: true }),
            }),
            { minLength: 1, maxLength: 12 },
          ),
        }),
        async (c) => {
          const size = (share: number) => Math.round(share * c.window);
          const conv = new Conversation({
            store: createInMemoryTranscriptStore(),
            space: 'acme',
            agentId: 'alice',
            tokenizer,
            logger: warnings(),
            ...(size(c.system) > 0 ? { systemPrompt: text('SYSTEM', size(c.system)) } : {}),
            options: { contextLength: c.window, threshold: c.threshold, strategy: c.strategy },
          });
          const tools = size(c.tools) > 0 ? [{ name: 't', description: text('TOOLS', size(c.tools)) }] : undefined;
          for (const [i, turn] of c.turns.entries()) {
            await conv.add('user', text(`USER${i}`, size(turn.user)));
            const prompt = {
              ...(size(turn.notebook) > 0 ? { notebook: text('NOTEBOOK', size(turn.notebook)) } : {}),
              ...(size(turn.recall) > 0 ? { recall: text('RECALL', size(turn.recall)) } : {}),
              reserveTokens: size(c.reserve),
              ...(tools ? { tools } : {}),
            };
            await conv.maybeCompress(prompt);
            const ctx = await conv.context(prompt);
            const sent = ctx.messages.map((m) => m.content).join('\n');
            const stored = await conv.messages();
            // The summary, when there is one, is in the prompt.
            if (stored.length > 0 && isSummaryMessage(stored[0]!)) {
              expect(sent).toContain(stored[0]!.content.split('\n').slice(1).join('\n').slice(0, 80));
            }
            // The newest turn is in the prompt verbatim, or (one turn too long to keep) in the summary.
            if (stored.some((m) => m.content.startsWith(`USER${i} `))) expect(sent).toContain(`USER${i} `);
            else expect(isSummaryMessage(stored[0]!)).toBe(true);
            // It fits, unless the parts never left out alone exceed the budget (then notebook and recall are out).
            const budget = c.window - size(c.reserve);
            if (ctx.overBudget) {
              expect(ctx.leftOut.recall || !prompt.recall).toBe(true);
              expect(ctx.leftOut.notebook || !prompt.notebook).toBe(true);
            } else {
              expect(recount(ctx.messages) + ctx.toolTokens).toBeLessThanOrEqual(budget);
            }
            await conv.add('assistant', text(`ANSWER${i}`, size(turn.answer)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
