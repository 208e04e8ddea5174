/**
 * `mem bench keyword` at tiny sizes through the mem command: a LoCoMo-shaped file (written here) and the synthetic
 * corpus, both keyword arms of one SQLite file, the overlap reported, the report written; bad flags refused. A smoke
 * test of the command: nothing here bounds a speed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mem-bench-keyword-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [MEM, 'bench', 'keyword', ...args], { maxBuffer: 16 * 1024 * 1024 });

describe('mem bench keyword', () => {
  it('compares the pruned index with FTS5 on LoCoMo-shaped data and the synthetic corpus, and writes its report', async () => {
    const turns = [
      'I adopted a rescue dog named Biscuit last spring.',
      'We went hiking near the lake and the dog loved it.',
      'My sister is training for a marathon in October.',
      'The marathon route passes the old harbour.',
    ];
    const dataset = join(out, 'tiny-locomo.json');
    writeFileSync(
      dataset,
      JSON.stringify(
        ['a', 'b'].map((id) => ({
          sample_id: id,
          conversation: {
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: turns.map((text, i) => ({ speaker: 'Ann', text, dia_id: `D1:${i + 1}` })),
          },
          qa: [
            { question: 'What is the name of the dog?', category: 1, evidence: ['D1:1'] },
            { question: 'When is the marathon?', category: 2, evidence: ['D1:3'] },
          ],
        })),
      ),
    );
    const { stdout } = await run(['--dataset', dataset, '--n', '300', '--queries', '20', '--out', out, '--json']);
    const { runs } = JSON.parse(stdout);
    expect(runs.map((r: { corpus: string }) => r.corpus)).toEqual(['LoCoMo', 'synthetic 300']);
    expect(runs[0]).toMatchObject({ memories: 8, queries: 4 });
    for (const r of runs) {
      expect(r.overlap10).toBeGreaterThanOrEqual(0.99);
      expect(r.pruned_ms.p95).toBeGreaterThanOrEqual(r.pruned_ms.p50);
    }
    expect(readdirSync(out).some((f) => f.startsWith('keyword-') && f.endsWith('.md'))).toBe(true);
  }, 120_000);

  it('refuses bad sizes with INVALID_INPUT and exit code 2', async () => {
    for (const args of [
      ['--n', '0'],
      ['--queries', 'many'],
    ]) {
      const failed = await run([...args, '--out', out]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain('INVALID_INPUT: --');
    }
  }, 60_000);
});
