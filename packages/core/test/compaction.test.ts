import { describe, expect, it } from 'vitest';
import { createTemplateSummarizer, spokenText, templateSummary } from '../src/adapters/template-summarizer.js';
import { dropOldToolResults, shouldCompress, slidingWindow, summaryMessage } from '../src/domain/compaction.js';
import type { TranscriptMessage } from '../src/ports/transcript-store.js';

const at = '2026-03-01T12:00:00.000Z';
const m = (role: TranscriptMessage['role'], content: string): TranscriptMessage => ({ role, content, at });

describe('compaction policy', () => {
  it('fires at threshold × context length and not below', () => {
    const policy = { contextLength: 1000, threshold: 0.9 };
    expect(shouldCompress(899, policy)).toBe(false);
    expect(shouldCompress(900, policy)).toBe(true);
    expect(shouldCompress(901, policy)).toBe(true);
  });

  it('sliding window drops whole oldest turns and keeps the newest turn', () => {
    const msgs = [
      m('user', 'q1'),
      m('assistant', 'a1'),
      m('user', 'q2'),
      m('tool', 't2'),
      m('assistant', 'a2'),
      m('user', 'q3'),
      m('assistant', 'a3'),
    ];
    const counts = msgs.map(() => 10);
    expect(slidingWindow(msgs, counts, 100)).toEqual(msgs);
    expect(slidingWindow(msgs, counts, 50).map((x) => x.content)).toEqual(['q2', 't2', 'a2', 'q3', 'a3']);
    expect(slidingWindow(msgs, counts, 25).map((x) => x.content)).toEqual(['q3', 'a3']);
    expect(slidingWindow(msgs, counts, 5).map((x) => x.content)).toEqual(['a3']);
  });

  it('sliding window keeps a leading summary block', () => {
    const msgs = [
      summaryMessage('earlier: chose postgres', at),
      m('user', 'q1'),
      m('assistant', 'a1'),
      m('user', 'q2'),
      m('assistant', 'a2'),
    ];
    const kept = slidingWindow(msgs, [10, 10, 10, 10, 10], 30);
    expect(kept.map((x) => x.content)).toEqual(['[Compressed Memory Summary]\nearlier: chose postgres', 'q2', 'a2']);
  });

  it('drops old large tool results to a one-line placeholder, sparing recent and small ones', () => {
    const msgs = [m('user', 'q'), m('tool', 'BIG1'), m('tool', 'small'), m('assistant', 'a'), m('tool', 'BIG2')];
    const counts = [5, 900, 10, 5, 800];
    const r = dropOldToolResults(msgs, counts, { largeToolResultTokens: 500, keepRecent: 1 });
    expect(r.replaced).toBe(1);
    expect(r.messages[1]!.content).toMatch(/^\[old tool result of about 900 tokens removed/);
    expect(r.messages[1]!.content).not.toContain('\n');
    expect(r.messages[2]).toBe(msgs[2]);
    expect(r.messages[4]).toBe(msgs[4]);
  });
});

describe('template summariser', () => {
  it('lists the last 20 messages as "- [role]: text", each cut at 200 characters', async () => {
    const msgs = Array.from({ length: 25 }, (_, i) =>
      m(i % 2 ? 'assistant' : 'user', `message ${i}\nsecond line ${'x'.repeat(i === 24 ? 300 : 0)}`),
    );
    const r = await createTemplateSummarizer().summarize({ messages: msgs });
    const lines = r.summary.split('\n');
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe('- [assistant]: message 5 second line');
    const last = lines[19]!;
    expect(last.startsWith('- [user]: message 24 second line xx')).toBe(true);
    expect(last.length).toBe('- [user]: '.length + 200 + 1);
    expect(r.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(r.summarizer).toBe('template');
    expect(templateSummary({ messages: msgs }, { lastMessages: 2 }).split('\n')).toHaveLength(2);
  });

  it('compacting again carries the earlier summary in one line and never nests the header', async () => {
    const summarizer = createTemplateSummarizer({ lastMessages: 4, maxChars: 60 });
    const first = await summarizer.summarize({ messages: [m('user', 'we picked Lisbon'), m('assistant', 'noted')] });
    const again = await summarizer.summarize({
      messages: [summaryMessage(first.summary, at), m('user', 'budget is 3000 EUR'), m('assistant', 'ok')],
    });
    expect(again.summary).not.toContain('[Compressed Memory Summary]');
    expect(again.summary.split('\n')).toEqual([
      '- earlier: [user]: we picked Lisbon · [assistant]: noted',
      '- [user]: budget is 3000 EUR',
      '- [assistant]: ok',
    ]);
    // Pass after pass, the summary does not grow past one pass's size.
    let summary = again.summary;
    for (let i = 0; i < 5; i++)
      summary = (await summarizer.summarize({ messages: [summaryMessage(summary, at), m('user', `step ${i}`)] }))
        .summary;
    expect(summary.split('\n')).toHaveLength(2);
    expect(summary.split('\n')[0]!.length).toBeLessThanOrEqual('- earlier: '.length + 61);
    expect(summary).not.toContain('[Compressed Memory Summary]');
    expect(summary.split('\n')[1]).toBe('- [user]: step 4');
    // The carried line never stacks "earlier:" prefixes, so what it says is not pushed out by them.
    expect(summary.match(/earlier:/g)).toHaveLength(1);
    expect(summary).toContain('we picked Lisbon');
  });

  it('reads a framework item stored as JSON as what it says, not as its JSON', () => {
    const item = JSON.stringify({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Booked the 9:40 train.' }],
    });
    const call = JSON.stringify({ type: 'function_call', name: 'book', callId: 'c1', arguments: '{"to":"Porto"}' });
    expect(spokenText(item)).toBe('Booked the 9:40 train.');
    expect(spokenText(call)).toBe('{"to":"Porto"}');
    expect(spokenText('{not json')).toBe('{not json');
    expect(spokenText('[1, 2]')).toBe('[1, 2]');
    expect(templateSummary({ messages: [m('assistant', item)] })).toBe('- [assistant]: Booked the 9:40 train.');
  });
});
