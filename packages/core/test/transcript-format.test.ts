import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archiveId, compareArchiveIds, parseArchiveId } from '../src/domain/archive-names.js';
import {
  appendRepair,
  parseTranscript,
  renderMessageLine,
  renderTranscript,
  renderTranscriptBlock,
  renderTranscriptHeader,
} from '../src/domain/transcript-format.js';
import { MemError } from '../src/errors.js';
import type { Transcript, TranscriptMessage } from '../src/ports/transcript-store.js';

const tricky = fc.constantFrom(
  '---',
  '\\---',
  '\\\\---',
  '### user — 2026-03-01T12:00:00.000Z',
  '\\### assistant — 2026-03-01T12:00:00.000Z',
  '### Heading in a reply',
  '## Interaction Log',
  '# Conversation Memory — x',
  '',
  '   ',
  'Conversation: fake',
  '---\r',
  'naïve café — 東京 🚀 مرحبا',
  '\\',
);
const line = fc.oneof(
  fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')),
  tricky,
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);
const content = fc
  .array(line, { minLength: 1, maxLength: 6 })
  .map((ls) => ls.join('\n'))
  .filter((c) => c.trim().length > 0 && !c.includes('\u0000'));
const at = fc
  .integer({ min: Date.parse('2000-01-01'), max: Date.parse('2099-12-31') })
  .map((t) => new Date(t).toISOString());
const message: fc.Arbitrary<TranscriptMessage> = fc.record({
  role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
  content,
  at,
});
const transcript: fc.Arbitrary<Transcript> = fc.record({
  header: fc.record({ conversationId: fc.stringMatching(/^[a-z0-9]{4,26}$/), createdAt: at }),
  messages: fc.array(message, { maxLength: 8 }),
});

describe('Markdown transcript format', () => {
  it('renders the documented transcript layout', () => {
    const text = renderTranscript('alice', {
      header: { conversationId: 'c1', createdAt: '2026-03-01T12:00:00.000Z' },
      messages: [{ role: 'user', content: 'Hello', at: '2026-03-01T12:00:01.000Z' }],
    });
    expect(text).toBe(
      '# Conversation Memory — alice\n\nConversation: c1\nCreated: 2026-03-01T12:00:00.000Z\n\n---\n\n## Interaction Log\n\n' +
        '### user — 2026-03-01T12:00:01.000Z\n\nHello\n\n---\n\n',
    );
    expect(renderMessageLine({ role: 'user', content: 'Hello', at: '2026-03-01T12:00:01.000Z' })).toBe(
      '[2026-03-01T12:00:01.000Z] user: Hello',
    );
  });

  it('round-trips any transcript exactly, including lines that look like separators or headings', () => {
    fc.assert(
      fc.property(transcript, (t) => {
        const parsed = parseTranscript(renderTranscript('agent-1', t));
        expect(parsed?.header).toEqual(t.header);
        expect(parsed?.messages).toEqual(t.messages);
        expect(parsed?.completeLength).toBe(renderTranscript('agent-1', t).length);
      }),
      { numRuns: 1000 },
    );
  });

  it('skips empty content', () => {
    expect(renderTranscriptBlock({ role: 'user', content: '  \n ', at: '2026-03-01T12:00:00.000Z' })).toBe('');
  });

  it('a write cut at any point never yields a partial message, and appending after the repair parses cleanly', () => {
    fc.assert(
      fc.property(transcript, message, fc.nat(), (t, next, cutSeed) => {
        const text = renderTranscript('a', t);
        const headerLength = renderTranscriptHeader('a', t.header).length;
        const cut = headerLength + (cutSeed % (text.length - headerLength + 1));
        const torn = text.slice(0, cut);
        const parsed = parseTranscript(torn)!;
        expect(t.messages.slice(0, parsed.messages.length)).toEqual(parsed.messages);
        const { keep, pad } = appendRepair(torn);
        const repaired = torn.slice(0, keep) + pad + renderTranscriptBlock(next);
        const after = parseTranscript(repaired)!;
        expect(after.messages.slice(0, -1)).toEqual(parsed.messages);
        expect(after.messages.at(-1)).toEqual(next);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a file that is not a transcript, and reads an empty file as none', () => {
    expect(parseTranscript('')).toBeNull();
    try {
      parseTranscript('just some notes\n');
      expect.unreachable();
    } catch (e) {
      expect(MemError.is(e, 'STORE_CORRUPT')).toBe(true);
    }
  });
});

describe('archive names', () => {
  it('carry the UTC time with milliseconds and a suffix for collisions, and sort in order', () => {
    expect(archiveId('2026-03-01T12:00:00.123Z')).toBe('history_2026-03-01T12-00-00.123Z');
    expect(archiveId('2026-03-01T12:00:00.123Z', 2)).toBe('history_2026-03-01T12-00-00.123Z-2');
    expect(parseArchiveId('history_2026-03-01T12-00-00.123Z-2')).toEqual({
      archivedAt: '2026-03-01T12:00:00.123Z',
      n: 2,
    });
    expect(parseArchiveId('../../etc/passwd')).toBeNull();
    expect(parseArchiveId('history_2026-03-01T12-00-00.123Z/../x')).toBeNull();
    const ids = [
      'history_2026-03-01T12-00-00.123Z-10',
      'history_2026-03-01T12-00-00.123Z',
      'history_2026-03-01T12-00-00.123Z-2',
      'history_2026-01-01T00-00-00.000Z',
    ];
    expect([...ids].sort(compareArchiveIds)).toEqual([ids[3], ids[1], ids[2], ids[0]]);
  });
});
