/**
 * What a compaction summary keeps (apps/bench/README.md, issue 37): archive windows of `--window` tokens from each
 * conversation of each `--dataset` (LoCoMo format), summarised at each `--budgets` token budget by each summariser;
 * per summariser, the share of the windows' names, numbers and dates (compaction-items.ts) still in the summary, the
 * summary's tokens and the time it took. Summarisers: `template` (its bullets, the oldest cut until the budget holds),
 * `extractive` (keywords only), `extractive+embed` (the local embedder), `llm-lead` (the LLM summariser against a
 * scripted server on 127.0.0.1 that answers with the first sentence of each message: a stand-in, not a model) and
 * `llm-down` (the same server answering 500: the fallback, extractive with the embedder, writes the summary).
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/compaction.ts --dataset ../shared/data/locomo10.json
 *        [--dataset ../shared/data/beam128k-as-locomo.json] [--budgets 256,512] [--window 2000] [--windows 4]
 *        [--summarizers template,extractive,extractive+embed,llm-lead,llm-down] [--json] [--out bench-results]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createExtractiveSummarizer,
  createGptTokenizer,
  createTemplateSummarizer,
  type TranscriptMessage,
} from '@mem/core';
import type { Summarizer } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { createLlmSummarizer } from '@mem/summarizer-llm';
import { archiveWindows, ITEM_KINDS, type ItemKind, itemsKept, windowMessages } from './compaction-items.js';
import { loadLocomo } from './locomo.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const SUMMARIZERS = ['template', 'extractive', 'extractive+embed', 'llm-lead', 'llm-down'] as const;
type SummarizerName = (typeof SUMMARIZERS)[number];

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', multiple: true },
    budgets: { type: 'string', default: '256,512' },
    window: { type: 'string', default: '2000' },
    windows: { type: 'string', default: '4' },
    summarizers: { type: 'string', default: SUMMARIZERS.join(',') },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const log = (s: string) => process.stderr.write(`${s}\n`);
const fail = (s: string): never => {
  log(`INVALID_INPUT: ${s}`);
  process.exit(2);
};
const whole = (flag: string, text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`--${flag} takes a positive whole number, got "${text}"`);
  return n;
};
const datasets =
  values.dataset ?? fail('give at least one --dataset <LoCoMo-format file>, e.g. ../shared/data/locomo10.json');
const budgets = values.budgets!.split(',').map((b) => whole('budgets', b.trim()));
const windowTokens = whole('window', values.window!);
const perConversation = whole('windows', values.windows!);
const names = values.summarizers!.split(',').map((s) => s.trim()) as SummarizerName[];
for (const n of names) if (!SUMMARIZERS.includes(n)) fail(`--summarizers: "${n}" is none of ${SUMMARIZERS.join(', ')}`);

const tokenizer = createGptTokenizer();
const embedder = createLocalEmbedder();

/** A chat server that answers with the first sentence of each message of the prompt (`lead`) or 500 (`down`). */
async function scriptedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as { model: string; max_tokens?: number; messages: { content: string }[] };
      if (request.model === 'down') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"scripted outage"}}');
        return;
      }
      const limit = (request.max_tokens ?? 1_024) * 4;
      const lines: string[] = [];
      let used = 0;
      for (const line of request.messages.at(-1)!.content.split('\n')) {
        const said = /^\[[^\]]*\] \w+: (.*)$/.exec(line)?.[1];
        if (!said) continue;
        const lead = `- ${/^.*?[.!?](?=\s|$)/.exec(said)?.[0] ?? said}`;
        if (used + lead.length + 1 > limit) break;
        lines.push(lead);
        used += lead.length + 1;
      }
      const content = `## Facts\n${lines.join('\n')}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'scripted',
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((ok) => server.close(() => ok())) };
}

/** The template's bullets, the oldest dropped until the budget holds (the template knows no budget of its own). */
function templateWithin(budget: number): Summarizer {
  const template = createTemplateSummarizer();
  return {
    id: 'template',
    async summarize(input) {
      const r = await template.summarize(input);
      const lines = r.summary.split('\n');
      while (lines.length > 1 && tokenizer.count(lines.join('\n')) > budget) lines.shift();
      return { ...r, summary: lines.join('\n') };
    },
  };
}

function summarizerFor(name: SummarizerName, budget: number, llmUrl: string): Summarizer {
  const extractive = (withEmbedder: boolean) =>
    createExtractiveSummarizer({ maxTokens: budget, ratio: 1, tokenizer, ...(withEmbedder ? { embedder } : {}) });
  switch (name) {
    case 'template':
      return templateWithin(budget);
    case 'extractive':
      return extractive(false);
    case 'extractive+embed':
      return extractive(true);
    case 'llm-lead':
    case 'llm-down':
      return createLlmSummarizer({
        baseURL: llmUrl,
        model: name === 'llm-lead' ? 'lead' : 'down',
        maxTokens: budget,
        maxRetries: 0,
        fallback: extractive(true),
      });
  }
}

interface Cell {
  dataset: string;
  budget: number;
  summarizer: SummarizerName;
  windows: number;
  share: Record<ItemKind | 'all', number>;
  items: Record<ItemKind, number>;
  tokensP50: number;
  overBudget: number;
  msP50: number;
}

const server = await scriptedServer();
const cells: Cell[] = [];
await embedder.embed(['warm up']);
for (const path of datasets) {
  const dataset = basename(path).replace(/\.json$/, '');
  const windows = loadLocomo(path, { keepWithoutEvidence: true }).flatMap((c) =>
    archiveWindows(c.turns, windowTokens, perConversation, (t) => tokenizer.count(t)),
  );
  log(`${dataset}: ${windows.length} windows of ≥ ${windowTokens} tokens`);
  for (const budget of budgets) {
    for (const name of names) {
      const summarizer = summarizerFor(name, budget, server.url);
      const counts = { name: { all: 0, kept: 0 }, number: { all: 0, kept: 0 }, date: { all: 0, kept: 0 } };
      const tokens: number[] = [];
      const ms: number[] = [];
      let over = 0;
      for (const window of windows) {
        const messages: TranscriptMessage[] = windowMessages(window);
        const start = performance.now();
        const { summary } = await summarizer.summarize({ messages, maxTokens: budget });
        ms.push(performance.now() - start);
        const n = tokenizer.count(summary);
        tokens.push(n);
        if (n > budget) over++;
        const kept = itemsKept(
          window.map((t) => t.content),
          summary,
        );
        for (const kind of ITEM_KINDS) {
          counts[kind].all += kept[kind].all;
          counts[kind].kept += kept[kind].kept;
        }
      }
      const share = (k: ItemKind) => (counts[k].all ? counts[k].kept / counts[k].all : 0);
      const all = ITEM_KINDS.reduce((a, k) => a + counts[k].all, 0);
      const kept = ITEM_KINDS.reduce((a, k) => a + counts[k].kept, 0);
      cells.push({
        dataset,
        budget,
        summarizer: name,
        windows: windows.length,
        share: { name: share('name'), number: share('number'), date: share('date'), all: all ? kept / all : 0 },
        items: { name: counts.name.all, number: counts.number.all, date: counts.date.all },
        tokensP50: percentile(tokens, 50),
        overBudget: over,
        msP50: percentile(ms, 50),
      });
      log(`${dataset} @${budget} ${name}: all ${round(kept / Math.max(1, all), 3)}`);
    }
  }
}
await server.close();

const pct = (x: number) => round(x * 100, 1);
const { report } = saveReport(
  {
    bench: 'compaction',
    title: `What a compaction summary keeps: names, numbers and dates of ${windowTokens}-token archive windows`,
    table: {
      columns: [
        'data set',
        'budget',
        'summariser',
        'names %',
        'numbers %',
        'dates %',
        'all %',
        'summary tokens p50',
        'over budget',
        'ms p50',
      ],
      rows: cells.map((c) => [
        c.dataset,
        c.budget,
        c.summarizer,
        pct(c.share.name),
        pct(c.share.number),
        pct(c.share.date),
        pct(c.share.all),
        c.tokensP50,
        c.overBudget,
        round(c.msP50, 1),
      ]),
    },
    notes: [
      `Windows: runs of consecutive turns of at least ${windowTokens} tokens, at most ${perConversation} per conversation, spread evenly; the first speaker is the user.`,
      "Items (apps/bench/src/compaction-items.ts, not the summariser's own rules): a word with a digit; a month, weekday or yesterday/today/tomorrow/tonight; a capitalised word that does not start a sentence. Speaker labels are left out. Share = distinct items of the window found as words in the summary.",
      'template: the last 20 messages cut at 200 characters, oldest lines dropped until the budget holds. llm-lead: a scripted server answering with the first sentence of each message (a stand-in, not a model); llm-down: the server answers 500 and the fallback writes the summary.',
    ],
    data: { budgets, windowTokens, perConversation, cells },
  },
  values.out,
);
if (values.json) process.stdout.write(`${JSON.stringify(report.data, null, 2)}\n`);
process.exit(0);
