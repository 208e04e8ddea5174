/**
 * The runner's per-turn overhead (apps/bench/README.md): what `Runner.assembleTurn` costs an agent loop on the embedded
 * default (SQLite knowledge, transcript and notebook stores in one file), at 1k / 10k / 100k stored memories with a
 * 1,000-message transcript, median and p95 — next to the model-free baseline: the glue a loop without the runner
 * would run for the same turn (append the user message durably, search the task, read the notebook block), and the
 * bare knowledge search alone. No model is called; vectors come from the hashing embedder so only mem is measured.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/runner.ts [--sizes 1000,10000,100000] [--turns 50] [--json] [--out bench-results]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createStack, MemError, type Principal } from '@mem/core';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '@mem/store-sqlite';
import { corpus, queries } from './corpus.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    turns: { type: 'string', default: '50' },
    transcript: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const turns = Number(values.turns);
const transcriptSize = Number(values.transcript);
for (const [name, v] of [
  ['--turns', turns],
  ['--transcript', transcriptSize],
  ...sizes.map((s) => ['--sizes', s] as const),
] as const) {
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`${name} must be whole numbers of at least 1.\n`);
    process.exit(2);
  }
}
const log = (s: string) => process.stderr.write(`${s}\n`);
const stat = (xs: number[]) => ({ p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2) });

interface Row {
  memories: number;
  transcript: number;
  runner: { p50: number; p95: number };
  glue: { p50: number; p95: number };
  search: { p50: number; p95: number };
  context_tokens: number;
}
const rows: Row[] = [];

for (const n of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-runner-'));
  try {
    const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
    const stack = createStack({
      knowledge,
      embedder: createHashingEmbedder({ dimension: 512 }),
      transcripts: createSqliteTranscriptStore({ db: knowledge.db }),
      notebooks: createSqliteNotebookStore({ db: knowledge.db }),
    });
    const me: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
    const loader: Principal = { space: 'bench', agentId: 'bench-loader', role: 'lead' };
    log(`n=${n}: ingesting…`);
    const items = corpus(n);
    for (let start = 0; start < items.length; start += 1000) {
      const slice = items.slice(start, start + 1000);
      const results = await stack.knowledge.storeMany(
        loader,
        slice.map((it) => ({ content: it.content, tags: it.tags, scope: it.scope, source: 'manual' as const })),
        slice.map((it) => ({ agentId: it.agentId })),
      );
      for (const r of results) if (MemError.is(r)) throw r;
    }
    // A long transcript (a window large enough that no turn compacts: compaction is the summariser's cost, not the
    // runner's) and a notebook with a few lines.
    const conversation = stack.conversations!.open({ space: me.space, agentId: me.agentId });
    const history = Array.from({ length: transcriptSize }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Turn ${i}: the deploy of service ${i % 17} finished after ${i % 60} seconds with ${i % 5} warnings.`,
    }));
    for (let i = 0; i < history.length; i += 500) await conversation.addMany(history.slice(i, i + 500));
    for (const line of ['Staging resets on Sundays.', 'Ada prefers short answers.', 'Billing owns invoices.'])
      await stack.notebook!.write(me, { content: line });
    const runner = stack.runner({ contextWindow: 10_000_000 });
    const qs = queries(turns * 3, 11);

    const runnerMs: number[] = [];
    const glueMs: number[] = [];
    const searchMs: number[] = [];
    let tokens = 0;
    for (let t = 0; t < turns; t++) {
      const task = qs[t]!;
      let t0 = performance.now();
      const turn = await runner.assembleTurn({
        principal: me,
        systemPrompt: 'You are a release engineer.',
        task,
        taskId: `T-${t}`,
        messages: [{ role: 'user', content: `Please look into: ${task}` }],
      });
      runnerMs.push(performance.now() - t0);
      tokens = turn.report.tokens;

      // The glue without the runner, for the same kind of turn: durable append, task search, notebook block.
      t0 = performance.now();
      await conversation.add('user', `Please look into: ${qs[turns + t]}`);
      await stack.knowledge.search(me, { query: qs[turns + t]!, limit: 5 });
      await stack.notebook!.inject(me);
      glueMs.push(performance.now() - t0);

      t0 = performance.now();
      await stack.knowledge.search(me, { query: qs[2 * turns + t]!, limit: 5 });
      searchMs.push(performance.now() - t0);
    }
    await stack.close();
    const row: Row = {
      memories: n,
      transcript: transcriptSize,
      runner: stat(runnerMs),
      glue: stat(glueMs),
      search: stat(searchMs),
      context_tokens: tokens,
    };
    rows.push(row);
    log(
      `n=${n}: runner p50 ${row.runner.p50} ms p95 ${row.runner.p95} · glue p50 ${row.glue.p50} p95 ${row.glue.p95} · search p50 ${row.search.p50}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

saveReport(
  {
    bench: 'runner',
    title: 'Runner per-turn overhead',
    table: {
      columns: [
        'memories',
        'transcript msgs',
        'assembleTurn p50 ms',
        'assembleTurn p95 ms',
        'glue p50 ms',
        'glue p95 ms',
        'search p50 ms',
        'context tokens',
      ],
      rows: rows.map((r) => [
        r.memories,
        r.transcript,
        r.runner.p50,
        r.runner.p95,
        r.glue.p50,
        r.glue.p95,
        r.search.p50,
        r.context_tokens,
      ]),
    },
    chart: {
      title: 'assembleTurn p50 vs the glue without the runner',
      unit: 'ms',
      note: 'lower is better; no model call',
      bars: rows.flatMap((r) => [
        { label: `runner @${r.memories}`, value: r.runner.p50 },
        { label: `glue @${r.memories}`, value: r.glue.p50 },
      ]),
    },
    notes: [
      `${turns} turns per size on SQLite (one file: knowledge, transcript, notebook), hashing embedder (512-d), a ${transcriptSize}-message transcript; the window is large enough that no turn compacts.`,
      'glue = what a loop without the runner runs for a turn: a durable append, one task search (limit 5), the notebook block.',
    ],
    data: { turns, rows },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ rows }));
