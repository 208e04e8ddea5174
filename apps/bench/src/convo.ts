/**
 * Conversation memory benchmark (apps/bench/README.md): appends/s with write-through durability, context-assembly time at
 * 1k / 10k / 100k messages (must stay flat: token counts are incremental), and compaction time without the
 * summariser call. Runs on the Markdown store (the default) and on SQLite.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/convo.ts [--sizes 1000,10000,100000] [--appends 300] [--json] [--out bench-results]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createInMemoryKnowledgeStore, createStack } from '@mem/core';
import type { TranscriptStore } from '@mem/core/adapter';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteTranscriptStore } from '@mem/store-sqlite';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    appends: { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const sizes = values.sizes!.split(',').map(Number);
const appends = Number(values.appends);
const text = (i: number) =>
  `Message ${i}: the deploy of service ${i % 17} finished after ${i % 60} seconds with ${i % 5} warnings to review.`;

interface Run {
  store: string;
  appends_per_s: number;
  append_ms: { p50: number; p95: number };
  context_ms: Record<string, number>;
  load_ms: Record<string, number>;
  compaction_ms: Record<string, number>;
  ratio_100k_vs_1k?: number;
}

async function bench(name: string, open: (dir: string) => TranscriptStore): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), `mem-convo-${name}-`));
  const store = open(dir);
  // Contexts large enough that nothing is compressed while measuring.
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    transcripts: store,
    conversation: { contextLength: 1_000_000_000 },
  });
  const service = stack.service('conversations');
  const run: Run = {
    store: name,
    appends_per_s: 0,
    append_ms: { p50: 0, p95: 0 },
    context_ms: {},
    load_ms: {},
    compaction_ms: {},
  };

  const single = service.open({ space: 'bench', agentId: 'appender' });
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < appends; i++) {
    const s = performance.now();
    await single.add(i % 2 ? 'assistant' : 'user', text(i));
    times.push(performance.now() - s);
  }
  run.appends_per_s = round(appends / ((performance.now() - t0) / 1000), 0);
  run.append_ms = { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };

  for (const n of sizes) {
    const agent = `agent-${n}`;
    const writer = service.open({ space: 'bench', agentId: agent });
    for (let i = 0; i < n; i += 1000) {
      await writer.addMany(
        Array.from(
          { length: Math.min(1000, n - i) },
          (_, j) => ({ role: (i + j) % 2 ? 'assistant' : 'user', content: text(i + j) }) as const,
        ),
      );
    }
    let s = performance.now();
    const convo = service.open({
      space: 'bench',
      agentId: agent,
      systemPrompt: 'You are a release bot.',
      rules: ['Be brief.'],
    });
    await convo.load();
    run.load_ms[n] = round(performance.now() - s);
    // A live loop: each turn appends a message (durably), then assembles the context; only the assembly is timed.
    const ctxTimes: number[] = [];
    for (let k = 0; k < 30; k++) {
      await convo.add('user', `Turn ${k}: what happened in run ${k}?`);
      s = performance.now();
      await convo.context({ turn: `What happened in run ${k}?`, reserveTokens: 1000 });
      ctxTimes.push(performance.now() - s);
    }
    run.context_ms[n] = round(percentile(ctxTimes, 50), 3);
    s = performance.now();
    await convo.compact('Summary: deploys finished; review warnings.');
    run.compaction_ms[n] = round(performance.now() - s);
  }
  const first = run.context_ms[sizes[0]!]!;
  const last = run.context_ms[sizes[sizes.length - 1]!]!;
  run.ratio_100k_vs_1k = round(last / first, 2);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return run;
}

const runs = [
  await bench('markdown', (dir) => createMarkdownStores({ root: dir }).transcripts),
  await bench('sqlite', (dir) => createSqliteTranscriptStore({ path: join(dir, 'convo.db') })),
];
const last = sizes[sizes.length - 1]!;
saveReport(
  {
    bench: 'convo',
    title: 'Conversation memory',
    table: {
      columns: [
        'store',
        'appends/s (fsync each)',
        'append p50 ms',
        ...sizes.map((n) => `context p50 ms @${n}`),
        ...sizes.map((n) => `compaction ms @${n}`),
        `context ${last} vs ${sizes[0]}`,
      ],
      rows: runs.map((r) => [
        r.store,
        r.appends_per_s,
        r.append_ms.p50,
        ...sizes.map((n) => r.context_ms[n] ?? null),
        ...sizes.map((n) => r.compaction_ms[n] ?? null),
        `${r.ratio_100k_vs_1k}×`,
      ]),
    },
    chart: {
      title: 'Context assembly p50 by transcript size',
      unit: 'ms',
      note: 'lower is better; must stay flat as the transcript grows',
      bars: runs.flatMap((r) => sizes.map((n) => ({ label: `${r.store} @${n}`, value: r.context_ms[n] ?? 0 }))),
    },
    notes: [
      'Each turn appends durably (fsync) before the context is assembled; compaction uses a template summary (no model call).',
    ],
    data: { sizes, runs },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ runs }));
else {
  for (const r of runs) {
    console.log(
      `${r.store}: ${r.appends_per_s} appends/s (p50 ${r.append_ms.p50} ms, p95 ${r.append_ms.p95} ms, fsync each)`,
    );
    for (const n of sizes)
      console.log(
        `  ${String(n).padStart(7)} messages: load ${r.load_ms[n]} ms, context p50 ${r.context_ms[n]} ms, compaction ${r.compaction_ms[n]} ms`,
      );
    console.log(`  context at ${sizes[sizes.length - 1]} vs ${sizes[0]}: ${r.ratio_100k_vs_1k}×`);
  }
}
