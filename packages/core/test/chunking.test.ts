import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkContent, DEFAULT_CHUNKING, reassemble } from '../src/domain/chunking.js';

const markdownish = fc
  .array(
    fc.oneof(
      fc.constantFrom('# Title\n', '## Part\n', '### Sub\n', '\n', '\n\n', '. ', '! ', ' ', '🎉', '東京', 'é'),
      fc.string({ minLength: 0, maxLength: 400 }),
      fc.lorem({ maxCount: 60, mode: 'sentences' }),
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

describe('chunking', () => {
  it('keeps short content as one chunk, unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 1999 }), (s) => {
        const chunks = chunkContent(s);
        return chunks.length === 1 && chunks[0]!.content === s && chunks[0]!.bodyStart === 0;
      }),
    );
  });

  it('reassembling the chunks gives back every character', () => {
    fc.assert(
      fc.property(markdownish, (s) => reassemble(chunkContent(s)) === s),
      { numRuns: 300 },
    );
  });

  it('keeps chunks near the size limit and never below the minimum (but the last)', () => {
    fc.assert(
      fc.property(
        markdownish.filter((s) => s.length >= 2000),
        (s) => {
          const chunks = chunkContent(s);
          return (
            chunks.every((c) => c.content.length <= DEFAULT_CHUNKING.maxChars + DEFAULT_CHUNKING.minChars + 210) &&
            chunks.every((c) => c.body.length > 0)
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('prefixes chunks with their heading path and overlaps pieces of a section', () => {
    const body = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about the deployment pipeline.`).join(
      ' ',
    );
    const doc = `# Guide\n\nIntro text for the guide that is long enough to stand alone as a piece.\n\n## Deploy\n\n### Steps\n\n${body}\n`;
    const chunks = chunkContent(doc);
    expect(chunks.length).toBeGreaterThan(1);
    const steps = chunks.filter((c) => c.headingPath === 'Guide > Deploy > Steps');
    expect(steps.length).toBeGreaterThan(1);
    for (const c of steps) expect(c.content.startsWith('Guide > Deploy > Steps\n\n')).toBe(true);
    const second = steps[1]!;
    const overlap = second.content.slice('Guide > Deploy > Steps\n\n'.length, second.bodyStart);
    expect(overlap.length).toBe(100);
    expect(steps[0]!.body.endsWith(overlap)).toBe(true);
    expect(reassemble(chunks)).toBe(doc);
  });
});
