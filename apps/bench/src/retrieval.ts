/**
 * Retrieval quality on LoCoMo-format data (apps/bench/README.md): every turn stored as one memory in a fresh space per
 * conversation, every question of categories 1–4 searched within its space, evidence turns scored.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/retrieval.ts --dataset ../shared/data/locomo10.json
 *        [--weights 1:0.5,1:1] [--limit-conversations N] [--cache f] [--json] [--out bench-results]
 *        [--stacks mem,keyword-only,vector-only,hashing,mem0,langgraph]   (peers: src/peers/)
 *        [--rerank-url URL [--rerank-model M] [--rerank-format cohere|tei] | --rerank-fake]   (adds mem+rerank)
 *        [--rewrite-url URL --rewrite-model M | --rewrite-fake]   (adds mem+rewrite: model-stages.ts)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createHashingEmbedder,
  createStack,
  DEFAULT_KNOWLEDGE_OPTIONS,
  type KnowledgeOptions,
  MemError,
  type Principal,
  type StackOptions,
} from '@mem/core';
import { type Embedder, type KnowledgeStore, queryTerms } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { createSqliteStore } from '@mem/store-sqlite';
import { keywordHits } from '@mem/testkit';
import { type Candidate, type CrossValidation, crossValidate } from './cross-validate.js';
import { graphExtractor, graphStacks } from './graph-recall.js';
import { type Conversation, loadLocomo } from './locomo.js';
import { outcome, type QuestionOutcome, type Summary, summarise } from './metrics.js';
import { modelStages } from './model-stages.js';
import { installedPeers, openRetrievalPeer, PEERS } from './peers/index.js';
import { measureRecallBlock, type RecallBlockFigures } from './recall-block.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    dataset: { type: 'string', default: '../shared/data/locomo10.json' },
    weights: { type: 'string' },
    'limit-conversations': { type: 'string' },
    json: { type: 'boolean', default: false },
    cache: { type: 'string' },
    // Default: the mem stacks and every peer whose package is installed; a peer asked for but missing gets a row
    // with the reason.
    stacks: {
      type: 'string',
      default: ['mem', 'mem+graph', 'keyword-only', 'bm25', 'vector-only', 'hashing', ...installedPeers()].join(','),
    },
    out: { type: 'string' },
    // A reranker over a /rerank endpoint adds the stack `mem+rerank` (docs/ranking.md); `--rerank-fake` serves one on
    // 127.0.0.1 that scores by the query words a text holds: the plumbing and its cost, not a model's quality.
    'rerank-url': { type: 'string' },
    'rerank-model': { type: 'string' },
    'rerank-format': { type: 'string', default: 'cohere' },
    'rerank-fake': { type: 'boolean', default: false },
    'rewrite-url': { type: 'string' },
    'rewrite-model': { type: 'string' },
    'rewrite-fake': { type: 'boolean', default: false },
    // mem+graph's graph read by an LLM statement extractor (an OpenAI-compatible chat model; key in MEM_LLM_API_KEY)
    // instead of the offline one.
    'graph-llm-url': { type: 'string' },
    'graph-llm-model': { type: 'string' },
    // Fit the session-context, vector, time-cue and neighbouring-turn weights by leave-one-conversation-out cross-validation (cross-validate.ts).
    cv: { type: 'boolean', default: false },
    // The recall block's precision/recall on the labelled set of recall-block.ts (mem stack); on unless turned off.
    'recall-block': { type: 'boolean', default: true },
  },
});

/** A /rerank service on 127.0.0.1 scoring each text by the share of the query's words it holds (plumbing only). */
const KNOWN_STACKS = ['mem', 'mem+graph', 'keyword-only', 'bm25', 'vector-only', 'hashing', ...PEERS];
const unknownStacks = values.stacks!.split(',').filter((s) => !KNOWN_STACKS.includes(s));
if (unknownStacks.length > 0) {
  process.stderr.write(
    `bench retrieval: unknown --stacks ${unknownStacks.join(', ')}; give some of ${KNOWN_STACKS.join(', ')}.\n`,
  );
  process.exit(2);
}
let conversations = loadLocomo(values.dataset!);
if (values['limit-conversations']) conversations = conversations.slice(0, Number(values['limit-conversations']));
const log = (s: string) => process.stderr.write(`${s}\n`);

/** An embedder that remembers vectors by text, so that several stacks share one embedding pass. */
function cached(inner: Embedder) {
  const cache = new Map<string, Float32Array>();
  let loadedSeconds: number | undefined;
  const embed = async (texts: string[]) => {
    const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
    if (missing.length) {
      const vs = await inner.embed(missing);
      for (const [i, t] of missing.entries()) cache.set(t, vs[i]!);
    }
    return texts.map((t) => cache.get(t)!);
  };
  return {
    id: inner.id,
    dimension: inner.dimension,
    embed,
    warm: async (texts: string[]) => void (await embed(texts)),
    get loadedSeconds() {
      return loadedSeconds;
    },
    load(vectors: Record<string, string>, seconds: number) {
      for (const [t, b64] of Object.entries(vectors)) {
        const buf = Buffer.from(b64, 'base64');
        cache.set(t, new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4));
      }
      loadedSeconds = seconds;
    },
    dump(): Record<string, string> {
      return Object.fromEntries(
        [...cache].map(([t, v]) => [t, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')]),
      );
    },
  };
}

/** The same store seen without its keyword arm (for the vector-only stack). */
function vectorOnly(store: KnowledgeStore): KnowledgeStore {
  const view = Object.create(store) as KnowledgeStore;
  Object.defineProperty(view, 'capabilities', { value: { ...store.capabilities, keyword: false } });
  return view;
}

/** The codes of a turn mem refuses to keep; the ingest counts them and goes on. */
const REFUSALS = new Set(['SECRET_DETECTED', 'PERSONAL_DATA_DETECTED', 'INVALID_INPUT']);
/** Turns refused at ingest (conversation/dia id → code), the same for every stack that stores through mem. */
const refused = new Map<string, string>();

interface Ingested {
  store: KnowledgeStore;
  ids: Map<string, Map<string, string>>; // conversation → dia id → memory id
  ingestS: number;
}

async function ingest(embedder: Embedder | undefined, convs: Conversation[]): Promise<Ingested & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-retrieval-'));
  const store = createSqliteStore({ path: join(dir, 'bench.db') });
  const stack = createStack({ knowledge: store, ...(embedder ? { embedder } : {}) });
  const ids = new Map<string, Map<string, string>>();
  const t0 = performance.now();
  for (const c of convs) {
    const p: Principal = { space: c.id, agentId: 'bench', role: 'worker' };
    const m = new Map<string, string>();
    for (const t of c.turns) {
      try {
        const r = await stack.knowledge.import(p, { content: t.content, createdAt: t.createdAt, source: 'manual' });
        m.set(t.diaId, r.id);
      } catch (error) {
        // A turn mem refuses (a secret, personal data) is counted and left out; its questions lose that evidence.
        if (!MemError.is(error) || !REFUSALS.has(error.code)) throw error;
        refused.set(`${c.id}/${t.diaId}`, error.code);
      }
    }
    ids.set(c.id, m);
  }
  return { store, ids, ingestS: (performance.now() - t0) / 1000, dir };
}

interface StackResult extends Summary {
  name: string;
  search_ms: { p50: number; p95: number };
  ingest_s: number;
  /** For a peer that embeds over HTTP: the median round trip of a request that computes nothing. */
  hop_ms?: number;
  error?: string;
  /** Per question (for the cross-validation; left out of the saved report). */
  outcomes?: QuestionOutcome[];
}

async function evaluate(
  name: string,
  data: Ingested,
  embedder: Embedder | undefined,
  memory: Partial<KnowledgeOptions>,
  store = data.store,
  models: Pick<StackOptions, 'reranker' | 'queryRewriter' | 'structured'> = {},
): Promise<StackResult> {
  const stack = createStack({
    knowledge: store,
    ...(embedder ? { embedder } : {}),
    ...models,
    knowledgeOptions: memory,
  });
  const search = async (c: Conversation, query: string) => {
    const p: Principal = { space: c.id, agentId: 'bench', role: 'worker' };
    const t0 = performance.now();
    const results = await stack.knowledge.search(p, { query, limit: 20 });
    return { ids: results.map((r) => r.docId), ms: performance.now() - t0 };
  };
  return score(name, data.ingestS, (c) => (diaId) => data.ids.get(c.id)!.get(diaId), search);
}

/** `SECRET_DETECTED 3, INVALID_INPUT 1`: the refused turns by code (each turn once, whichever stack met it). */
function refusedByCode(): string {
  const by = new Map<string, number>();
  for (const code of refused.values()) by.set(code, (by.get(code) ?? 0) + 1);
  return [...by].map(([code, n]) => `${code} ${n}`).join(', ');
}

/** The metrics of one stack or peer; `idOf` maps a conversation's dia ids to the ids its search answers with. */
async function score(
  name: string,
  ingestS: number,
  idOf: (c: Conversation) => (diaId: string) => string | undefined,
  search: (c: Conversation, query: string) => Promise<{ ids: string[]; ms: number }>,
): Promise<StackResult> {
  const outcomes: QuestionOutcome[] = [];
  const times: number[] = [];
  for (const c of conversations) {
    const idOfTurn = idOf(c);
    for (const q of c.questions) {
      const relevant = new Set(q.evidence.map(idOfTurn).filter((x): x is string => x !== undefined));
      if (relevant.size === 0) continue;
      const { ids: ranked, ms } = await search(c, q.question.slice(0, 4000));
      times.push(ms);
      outcomes.push(outcome(c.id, q.category, ranked, relevant));
    }
  }
  return {
    name,
    ...summarise(outcomes),
    search_ms: { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) },
    ingest_s: round(ingestS, 1),
    outcomes,
  };
}

const local = cached(createLocalEmbedder());
const allTexts = conversations.flatMap((c) => [
  ...c.turns.map((t) => t.content),
  ...c.questions.map((q) => q.question),
]);
// Vectors of a data set can be kept between runs (`--cache <file>`), since embedding is the slow part of the run.
const cacheFile = values.cache;
if (cacheFile && existsSync(cacheFile)) {
  const saved = JSON.parse(readFileSync(cacheFile, 'utf8')) as {
    model: string;
    embedS: number;
    vectors: Record<string, string>;
  };
  if (saved.model === local.id) local.load(saved.vectors, saved.embedS);
}
log(`embedding ${allTexts.length} texts with ${local.id}…`);
const t0 = performance.now();
await local.warm(allTexts);
const embedS = local.loadedSeconds ?? (performance.now() - t0) / 1000;
log(`embedded in ${embedS.toFixed(1)} s`);
if (cacheFile && local.loadedSeconds === undefined) {
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify({ model: local.id, embedS, vectors: local.dump() }));
}

const results: StackResult[] = [];
const wanted = new Set(values.stacks!.split(','));
const embedShareS = embedS * (conversations.reduce((s, c) => s + c.turns.length, 0) / allTexts.length);
const withLocal = await ingest(local, conversations);
withLocal.ingestS += embedShareS;
if (wanted.has('mem')) results.push(await evaluate('mem', withLocal, local, {}));
let recallBlock: RecallBlockFigures[] | undefined;
if (wanted.has('mem') && values['recall-block']) {
  log('recall block: every question in its own space and in the next conversation’s…');
  const { knowledge } = createStack({ knowledge: withLocal.store, embedder: local });
  recallBlock = await measureRecallBlock(knowledge, conversations, (c) => (d) => withLocal.ids.get(c.id)!.get(d));
}
for (const stage of await modelStages(values, log)) {
  results.push(await evaluate(stage.label, withLocal, local, {}, withLocal.store, stage.stack));
  await stage.close();
}
const graphRun = wanted.has('mem+graph')
  ? await graphStacks(
      conversations,
      (label, config, models) => evaluate(label, withLocal, local, config, withLocal.store, models),
      values.cv === true,
      log,
      graphExtractor(values['graph-llm-url'], values['graph-llm-model'], log),
    )
  : null;
if (graphRun) results.push(...graphRun.results);
if (wanted.has('keyword-only')) results.push(await evaluate('keyword-only', withLocal, undefined, {}));
// BM25 alone: the store's keyword arm in its own order, nothing of mem's ranking (the baseline to beat).
if (wanted.has('bm25')) {
  const bm25 = async (c: Conversation, query: string) => {
    const t0 = performance.now();
    const hits = await keywordHits(withLocal.store, {
      filter: { space: c.id, viewerAgentId: 'bench', now: new Date().toISOString() },
      terms: queryTerms(query),
      limit: 20,
    });
    return { ids: hits.map((h) => h.id), ms: performance.now() - t0 };
  };
  results.push(await score('bm25', withLocal.ingestS, (c) => (d) => withLocal.ids.get(c.id)!.get(d), bm25));
}
if (wanted.has('vector-only'))
  results.push(await evaluate('vector-only', withLocal, local, {}, vectorOnly(withLocal.store)));
for (const w of (values.weights ?? '').split(',').filter(Boolean)) {
  const [kw, vw] = w.split(':').map(Number);
  results.push(
    await evaluate(`mem-w${kw}:${vw}`, withLocal, local, {
      fusion: { ...DEFAULT_KNOWLEDGE_OPTIONS.fusion, keywordWeight: kw!, vectorWeight: vw! },
    }),
  );
}
let cv: (CrossValidation & { grid: string[] }) | undefined;
if (values.cv) {
  const candidates: Candidate<Partial<KnowledgeOptions>>[] = [];
  const neighbourGrid = [
    { weight: 0, radius: 1 },
    { weight: 0.5, radius: 2 },
    { weight: 1, radius: 2 },
    { weight: 2, radius: 2 },
    { weight: 1, radius: 3 },
  ];
  for (const session of [1, 2])
    for (const vector of [0.2, 0.3])
      for (const time of [1])
        for (const nb of neighbourGrid) {
          const config: Partial<KnowledgeOptions> = {
            fusion: { ...DEFAULT_KNOWLEDGE_OPTIONS.fusion, vectorWeight: vector },
            session: { ...DEFAULT_KNOWLEDGE_OPTIONS.session, weight: session },
            timeCue: { ...DEFAULT_KNOWLEDGE_OPTIONS.timeCue, weight: time },
            neighbours: { ...DEFAULT_KNOWLEDGE_OPTIONS.neighbours, ...nb },
          };
          const label = `session ${session}, vector ${vector}, time ${time}, neighbours ${nb.weight}${nb.weight > 0 ? ` r${nb.radius}` : ''}`;
          const point = await evaluate(label, withLocal, local, config);
          log(
            `cv: ${label}: any@10 ${point.recall_any['10']}, NDCG@10 ${point.ndcg10}, search p50 ${point.search_ms.p50} ms`,
          );
          candidates.push({ label, config, outcomes: point.outcomes! });
        }
  cv = { ...crossValidate(candidates), grid: candidates.map((c) => c.label) };
  results.push({
    name: 'mem (cv)',
    ...cv.heldOut,
    search_ms: { p50: Number.NaN, p95: Number.NaN },
    ingest_s: Number.NaN,
  });
}
const hashing = createHashingEmbedder({ dimension: 256 });
const withHashing = await ingest(hashing, conversations);
if (wanted.has('hashing')) results.push(await evaluate('hashing', withHashing, hashing, {}));
// The peers, on the same turns and questions with the same (cached) local embedder; ingest time gets the same share
// of the embedding pass as the mem stack's.
for (const name of PEERS.filter((p) => wanted.has(p))) {
  try {
    const peer = await openRetrievalPeer(name, conversations, local);
    results.push({ ...(await score(name, peer.ingestS + embedShareS, peer.idOf, peer.search)), hop_ms: peer.hopMs });
    await peer.close();
  } catch (error) {
    results.push({ name, error: (error as Error).message } as StackResult);
  }
}
for (const d of [withLocal, withHashing]) {
  await d.store.close();
  rmSync(d.dir, { recursive: true, force: true });
}

const questions = conversations.reduce((s, c) => s + c.questions.length, 0);
// Per-question outcomes are for the cross-validation only.
const reported = results.map(({ outcomes: _, ...r }) => r);
const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const categories = [...new Set(reported.flatMap((r) => Object.keys(r.by_category ?? {})))];
const cvNotes = cv
  ? [
      `mem (cv): session-context, vector, time-cue and neighbouring-turn weights chosen per held-out conversation on the other ${conversations.length - 1} (leave one conversation out; grid: ${cv.grid.join('; ')}). Chosen on all: ${cv.overall}.`,
      `Chosen per conversation: ${Object.entries(cv.chosen)
        .map(([c, l]) => `${c}: ${l}`)
        .join('; ')}.`,
    ]
  : [];
const recallNotes = recallBlock
  ? [
      'Recall block (mem, limit 5; each question as a task in its own space and in the next conversation’s): ' +
        recallBlock
          .map(
            (r) =>
              `${r.rule}: precision ${fmt(r.precision)}, recall ${fmt(r.recall)}, blocks with evidence ${fmt(r.with_evidence)}, empty elsewhere ${fmt(r.empty_elsewhere)}`,
          )
          .join('; '),
    ]
  : [];
saveReport(
  {
    bench: 'retrieval',
    title: `Retrieval quality (${values.dataset}, ${questions} questions)`,
    table: {
      columns: [
        'stack',
        'any@5',
        'any@10',
        'any@20',
        'all@5',
        'all@10',
        'all@20',
        'NDCG@10',
        'MRR',
        ...categories.flatMap((c) => [`${c} any@10`, `${c} all@10`]),
        'p50 ms',
        'p95 ms',
        'ingest s',
        'error',
      ],
      rows: reported.map((r) =>
        r.error
          ? [r.name, ...Array<null>(8 + 2 * categories.length + 3).fill(null), r.error]
          : [
              r.name,
              r.recall_any['5']!,
              r.recall_any['10']!,
              r.recall_any['20']!,
              r.recall_all['5']!,
              r.recall_all['10']!,
              r.recall_all['20']!,
              r.ndcg10,
              r.mrr,
              ...categories.flatMap((c) => [
                r.by_category[c]?.recall_any['10'] ?? null,
                r.by_category[c]?.recall_all['10'] ?? null,
              ]),
              Number.isFinite(r.search_ms.p50) ? r.search_ms.p50 : null,
              Number.isFinite(r.search_ms.p95) ? r.search_ms.p95 : null,
              Number.isFinite(r.ingest_s) ? r.ingest_s : null,
              null,
            ],
      ),
    },
    chart: {
      title: 'recall_any@10 per stack',
      unit: '',
      note: 'higher is better',
      bars: reported.filter((r) => !r.error).map((r) => ({ label: r.name, value: r.recall_any['10']! })),
    },
    notes: [
      'Every turn one memory in a space per conversation; questions of categories 1–4 with evidence.',
      "bm25 is the store's keyword arm alone (SQLite FTS5) in its own order; keyword-only is mem's ranking without vectors.",
      ...cvNotes,
      ...(graphRun ? [graphRun.note] : []),
      ...recallNotes,
      ...(refused.size > 0
        ? [`${refused.size} turns refused at ingest (${refusedByCode()}); counted and left out.`]
        : []),
    ],
    data: {
      dataset: values.dataset,
      questions,
      refused_turns: refused.size,
      stacks: reported,
      ...(cv ? { cv: { ...cv, heldOut: undefined } } : {}),
      ...(graphRun?.fitted ? { graph_cv: { ...graphRun.fitted, heldOut: undefined } } : {}),
      ...(recallBlock ? { recall_block: recallBlock } : {}),
    },
  },
  values.out,
);
if (values.json) {
  console.log(
    JSON.stringify({
      dataset: values.dataset,
      questions,
      refused_turns: refused.size,
      stacks: reported,
      ...(cv ? { cv } : {}),
      ...(graphRun?.fitted ? { graph_cv: graphRun.fitted } : {}),
      ...(recallBlock ? { recall_block: recallBlock } : {}),
    }),
  );
} else {
  console.log(
    `dataset ${values.dataset}: ${questions} questions${refused.size > 0 ? `; ${refused.size} turns refused at ingest (${refusedByCode()})` : ''}\n`,
  );
  console.log('stack            any@5  any@10 any@20 all@10 ndcg@10 mrr    p50ms  p95ms  ingest_s');
  for (const r of reported) {
    if (r.error) {
      console.log(`${r.name.padEnd(16)} error: ${r.error}`);
      continue;
    }
    console.log(
      `${r.name.padEnd(16)} ${[r.recall_any['5']!, r.recall_any['10']!, r.recall_any['20']!, r.recall_all['10']!, r.ndcg10, r.mrr].map((x) => fmt(x).padEnd(6)).join(' ')} ${String(r.search_ms.p50).padEnd(6)} ${String(r.search_ms.p95).padEnd(6)} ${r.ingest_s}`,
    );
  }
  console.log(`\nper category (any@10 / all@10 / NDCG@10): ${categories.join(', ')}`);
  for (const r of reported.filter((x) => !x.error)) {
    const cells = categories.map((c) => {
      const k = r.by_category[c];
      return k ? `${fmt(k.recall_any['10']!)} / ${fmt(k.recall_all['10']!)} / ${fmt(k.ndcg10)}` : '—';
    });
    console.log(`${r.name.padEnd(16)} ${cells.join('   ')}`);
  }
  for (const n of [...cvNotes, ...recallNotes]) console.log(`\n${n}`);
  for (const r of reported.filter((x) => x.hop_ms !== undefined)) {
    console.log(`${r.name}: HTTP hop ${r.hop_ms!.toFixed(2)} ms p50 (an embedding request answered without computing)`);
  }
}
