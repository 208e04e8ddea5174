import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { crossValidate } from '../src/cross-validate.js';
import { outcome, type QuestionOutcome, summarise } from '../src/metrics.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-retrieval-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A question's outcome where the evidence ranks first (hit) or is missing (miss). */
const q = (conversation: string, hit: boolean, category = 4): QuestionOutcome =>
  outcome(conversation, category, hit ? ['e', 'x'] : ['x', 'y'], new Set(['e']));

describe('cross-validation over conversations', () => {
  it('reports each conversation with the configuration chosen on the others, never on itself', () => {
    // A wins on c1 and c2; B wins only on c3. Held out, c3 must get A (chosen on c1 + c2), so its miss counts.
    const a = {
      label: 'A',
      config: 'A',
      outcomes: [q('c1', true), q('c1', true), q('c2', true), q('c2', true), q('c3', false)],
    };
    const b = {
      label: 'B',
      config: 'B',
      outcomes: [q('c1', false), q('c1', false), q('c2', false), q('c2', false), q('c3', true)],
    };
    const cv = crossValidate([a, b]);
    expect(cv.chosen).toEqual({ c1: 'A', c2: 'A', c3: 'A' });
    expect(cv.heldOut.questions).toBe(5);
    expect(cv.heldOut.recall_any['10']).toBeCloseTo(0.8, 3);
    expect(cv.overall).toBe('A');
  });

  it('summarises per named category', () => {
    const s = summarise([q('c1', true, 1), q('c1', false, 1), q('c1', true, 2)]);
    expect(s.by_category['multi-hop']!.recall_any['10']).toBe(0.5);
    expect(s.by_category.temporal!.n).toBe(1);
    expect(s.recall_all['5']).toBeCloseTo(0.667, 3);
  });
});

/** A LoCoMo-shaped data set of three small conversations (the real file is large; the shape is what matters). */
function tinyDataset(): string {
  const topics = [
    ['lake', 'camping', 'tent', 'fish'],
    ['piano', 'lessons', 'concert', 'teacher'],
    ['garden', 'tomatoes', 'compost', 'seeds'],
  ] as const;
  const data = topics.map((words, c) => {
    const conversation: Record<string, unknown> = { speaker_a: 'Ann', speaker_b: 'Ben' };
    for (let s = 1; s <= 2; s++) {
      conversation[`session_${s}_date_time`] = `1:00 pm on ${s + 3} May, 2023`;
      conversation[`session_${s}`] = words.map((w, i) => ({
        speaker: i % 2 === 0 ? 'Ann' : 'Ben',
        dia_id: `D${s}:${i + 1}`,
        text: `In session ${s} we talked about the ${w} and the weather ${c}.`,
      }));
    }
    // A turn mem refuses to keep (a credential pasted in passing): counted at ingest, the run goes on.
    if (c === 0)
      (conversation.session_2 as { speaker: string; dia_id: string; text: string }[]).push({
        speaker: 'Ben',
        dia_id: 'D2:5',
        text: `the CI token is ghp_${'A1b2C3d4E5'.repeat(4).slice(0, 36)}`,
      });
    return {
      sample_id: `conv.${c}`,
      conversation,
      qa: [
        { question: `What about the ${words[0]}?`, category: 4, evidence: ['D1:1'] },
        { question: `Tell me of the ${words[1]} and the ${words[2]}`, category: 1, evidence: ['D1:2', 'D2:3'] },
        { question: `When was the ${words[3]} mentioned in May 2023?`, category: 2, evidence: ['D2:4'] },
      ],
    };
  });
  const file = join(dir, 'tiny.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

describe('mem bench retrieval (tiny data set, real local embedder)', () => {
  it('reports every stack asked for, per category, the recall block, a rewriter stage and the cross-validated figures', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--conditions=dev-source',
        '--import',
        'tsx',
        'src/retrieval.ts',
        '--dataset',
        tinyDataset(),
        '--stacks',
        'mem,mem+graph,keyword-only,bm25',
        '--cv',
        '--rewrite-fake',
        '--json',
        '--out',
        join(dir, 'out'),
      ],
      { cwd: join(import.meta.dirname, '..'), maxBuffer: 64 * 1024 * 1024 },
    );
    const report = JSON.parse(stdout) as {
      questions: number;
      refused_turns: number;
      stacks: { name: string; recall_any: Record<string, number>; by_category: Record<string, unknown> }[];
      recall_block: { rule: string; precision: number; recall: number }[];
      cv: { chosen: Record<string, string> };
      graph_cv: { chosen: Record<string, string> };
    };
    expect(report.questions).toBe(9);
    expect(report.refused_turns).toBe(1);
    expect(report.stacks.map((s) => s.name)).toEqual([
      'mem',
      'mem+rewrite(fake)',
      'mem+graph',
      'mem+graph (cv)',
      'keyword-only',
      'bm25',
      'mem (cv)',
    ]);
    for (const s of report.stacks) {
      expect(Object.keys(s.recall_any)).toEqual(['5', '10', '20']);
      expect(Object.keys(s.by_category).sort()).toEqual(['multi-hop', 'single-hop', 'temporal']);
    }
    // Every question's evidence is in a conversation of eight turns: at 10, every stack finds it.
    expect(report.stacks.find((s) => s.name === 'bm25')!.recall_any['10']).toBe(1);
    expect(report.recall_block[0]!.rule).toBe('cosine ≥ 0.4 (old)');
    expect(report.recall_block.length).toBeGreaterThan(2);
    for (const r of report.recall_block) {
      expect(r.precision).toBeGreaterThanOrEqual(0);
      expect(r.recall).toBeLessThanOrEqual(1);
    }
    expect(Object.keys(report.cv.chosen).sort()).toEqual(['conv.0', 'conv.1', 'conv.2']);
    expect(Object.keys(report.graph_cv.chosen).sort()).toEqual(['conv.0', 'conv.1', 'conv.2']);
  }, 180_000);
});
