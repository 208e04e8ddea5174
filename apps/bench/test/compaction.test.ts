/**
 * `mem bench compaction` at a tiny size through the mem command: a LoCoMo-shaped file written here, every summariser
 * (the LLM ones against the bench's scripted server on 127.0.0.1), the report written; bad flags refused. A smoke
 * test of the command; the items it counts are checked on their own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveWindows, itemsKept, turnItems, windowMessages } from '../src/compaction-items.js';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mem-bench-compaction-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [MEM, 'bench', 'compaction', ...args], { maxBuffer: 16 * 1024 * 1024 });

describe('the items the compaction bench counts', () => {
  it('names that do not start a sentence, numbers, dates; speaker labels left out', () => {
    expect([...turnItems('Ann: Yesterday I met Priya in Lisbon. We paid 40 euros on Friday, in May.')].sort()).toEqual([
      'date:friday',
      'date:may',
      'date:yesterday',
      'name:lisbon',
      'name:priya',
      'number:40',
    ]);
    expect([...turnItems('Bob: I may go. Sure, Mr Smith.')]).toEqual(['name:smith']);
  });

  it('the share kept counts words of the summary, and windows are runs of turns spread over the conversation', () => {
    expect(itemsKept(['Ann: We met Priya and Tom on Friday.'], '- Priya, friday')).toEqual({
      name: { all: 2, kept: 1 },
      number: { all: 0, kept: 0 },
      date: { all: 1, kept: 1 },
    });
    const turns = Array.from({ length: 10 }, (_, i) => ({
      diaId: `D1:${i}`,
      content: `${i % 2 ? 'Bob' : 'Ann'}: turn ${i}`,
      createdAt: '2023-05-08T13:56:00.000Z',
      session: 1,
    }));
    const windows = archiveWindows(turns, 2, 2, () => 1);
    expect(windows.map((w) => w.map((t) => t.diaId))).toEqual([
      ['D1:0', 'D1:1'],
      ['D1:4', 'D1:5'],
    ]);
    expect(windowMessages(windows[0]!).map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('mem bench compaction', () => {
  it('summarises each window with every summariser at each budget and writes its report', async () => {
    const turns = [
      'Hi! How are you?',
      'Great, thanks. Priya moved the Berlin launch to 14 March.',
      'Oh nice. Is the budget still 42,000 euros?',
      'Yes, and Tomasz books the venue on Friday.',
      'Cool. Talk soon!',
      'Bye!',
    ];
    const dataset = join(out, 'tiny-locomo.json');
    writeFileSync(
      dataset,
      JSON.stringify([
        {
          sample_id: 'a',
          conversation: {
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: turns.map((text, i) => ({ speaker: i % 2 ? 'Ann' : 'Bob', text, dia_id: `D1:${i + 1}` })),
          },
          qa: [],
        },
      ]),
    );
    const { stdout } = await run([
      '--dataset',
      dataset,
      '--window',
      '20',
      '--windows',
      '2',
      '--budgets',
      '24,200',
      '--out',
      out,
      '--json',
    ]);
    const { cells } = JSON.parse(stdout);
    expect(cells).toHaveLength(10);
    for (const c of cells) {
      expect(c.windows).toBe(2);
      expect(c.share.all).toBeGreaterThanOrEqual(0);
      expect(c.share.all).toBeLessThanOrEqual(1);
    }
    const at = (budget: number, summarizer: string) =>
      cells.find((c: { budget: number; summarizer: string }) => c.budget === budget && c.summarizer === summarizer);
    // The extractive summariser keeps to its budget; with room for everything it keeps every item.
    expect(at(24, 'extractive').overBudget).toBe(0);
    expect(at(200, 'extractive').share.all).toBe(1);
    // The scripted outage hands the summary to the fallback, which writes what the extractive summariser writes.
    expect(at(200, 'llm-down').share).toEqual(at(200, 'extractive+embed').share);
    expect(readdirSync(out).some((f) => f.startsWith('compaction-') && f.endsWith('.md'))).toBe(true);
  }, 180_000);

  it('refuses bad flags with INVALID_INPUT and exit code 2', async () => {
    for (const args of [
      [],
      ['--dataset', 'x.json', '--budgets', '0'],
      ['--dataset', 'x.json', '--summarizers', 'gpt'],
    ]) {
      const failure = await run(args).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr).toContain('INVALID_INPUT');
    }
  });
});
