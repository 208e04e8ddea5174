/**
 * Answer accuracy on LoCoMo-format data (apps/bench/README.md, "Answer accuracy"): the "LLM-as-a-judge" J score of
 * the mem0 paper. For every question of categories 1–4 (5, adversarial, left out as the paper does) each stack
 * retrieves a context (src/qa-context.ts), a chat model answers from it with a fixed prompt and a judge model labels
 * the answer CORRECT or WRONG against the gold answer (src/qa-prompts.ts); J is the share labelled CORRECT
 * (src/qa-score.ts). Endpoint errors and unreadable judge answers are counted and reported, never thrown.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/qa.ts --dataset ../shared/data/locomo10.json
 *        --llm-url URL --llm-model M [--judge-url URL --judge-model M] [--stacks mem,full-context,mem0]
 *        [--limit-conversations N] [--limit-questions N] [--k 10] [--timeout 60000] [--json] [--out dir]
 *        Keys: MEM_LLM_API_KEY (answer model), MEM_JUDGE_API_KEY (judge; MEM_LLM_API_KEY when it is the same URL).
 */
import { parseArgs } from 'node:util';
import { createGptTokenizer } from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import {
  type ChatAnswer,
  type ChatClient,
  type ChatEndpointOptions,
  type ChatMessage,
  checkChatOptions,
  createChatClient,
} from '@mem/summarizer-llm';
import { type Conversation, loadLocomo, type Question } from './locomo.js';
import { peerMissing } from './peers/index.js';
import { type ContextSource, cachedEmbedder, openContextSource, QA_STACKS, type QaStack } from './qa-context.js';
import { ANSWER_PROMPT, answerMessage, cleanAnswer, JUDGE_PROMPT, judgeMessage, readJudgeLabel } from './qa-prompts.js';
import {
  isSkipped,
  noTokens,
  type QuestionRecord,
  type StackResult,
  type StackSummary,
  summariseStack,
} from './qa-score.js';
import { type BenchTable, renderText, saveReport } from './report.js';

const log = (s: string) => process.stderr.write(`${s}\n`);
const refuse = (s: string): never => {
  log(`INVALID_INPUT: ${s}`);
  process.exit(2);
};

const values = (() => {
  try {
    return parseArgs({
      options: {
        dataset: { type: 'string', default: '../shared/data/locomo10.json' },
        'llm-url': { type: 'string' },
        'llm-model': { type: 'string' },
        'judge-url': { type: 'string' },
        'judge-model': { type: 'string' },
        stacks: { type: 'string', default: QA_STACKS.join(',') },
        'limit-conversations': { type: 'string' },
        'limit-questions': { type: 'string' },
        k: { type: 'string', default: '10' },
        timeout: { type: 'string', default: '60000' },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
      },
    }).values;
  } catch (error) {
    return refuse((error as Error).message);
  }
})();
const positive = (flag: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) refuse(`--${flag} takes a positive whole number, got "${text}"`);
  return n;
};

if (!values['llm-url'] || !values['llm-model'])
  refuse(
    'give the answer model: --llm-url URL --llm-model M (any OpenAI-compatible chat API, e.g. http://localhost:11434/v1 for Ollama; key in MEM_LLM_API_KEY)',
  );
const stacks = [...new Set(values.stacks!.split(',').map((s) => s.trim()))].filter((s) => s !== '');
const unknown = stacks.filter((s) => !(QA_STACKS as readonly string[]).includes(s));
if (unknown.length > 0) refuse(`unknown --stacks ${unknown.join(', ')}; give some of ${QA_STACKS.join(', ')}`);
if (stacks.length === 0) refuse('--stacks names no stack');
const k = positive('k', values.k)!;
const timeoutMs = positive('timeout', values.timeout)!;
const limitConversations = positive('limit-conversations', values['limit-conversations']);
const limitQuestions = positive('limit-questions', values['limit-questions']);

const answerUrl = values['llm-url']!;
const judgeUrl = values['judge-url'] ?? answerUrl;
// The answer key goes to the judge only when the judge is the same endpoint: never to another host.
const judgeKey = process.env.MEM_JUDGE_API_KEY || (judgeUrl === answerUrl ? process.env.MEM_LLM_API_KEY : undefined);
const endpoint = (baseURL: string, model: string, apiKey: string | undefined): ChatEndpointOptions => ({
  baseURL,
  model,
  timeoutMs,
  ...(apiKey ? { apiKey } : {}),
});
const answerOptions = endpoint(answerUrl, values['llm-model']!, process.env.MEM_LLM_API_KEY);
const judgeOptions = endpoint(judgeUrl, values['judge-model'] ?? values['llm-model']!, judgeKey);
for (const [flag, options] of [
  ['--llm-url/--llm-model', answerOptions],
  ['--judge-url/--judge-model', judgeOptions],
] as const) {
  try {
    checkChatOptions(options, `bench qa ${flag}`);
  } catch (error) {
    refuse((error as Error).message);
  }
}

let conversations: Conversation[] = [];
try {
  conversations = loadLocomo(values.dataset!, { keepWithoutEvidence: true });
} catch (error) {
  refuse(`cannot read --dataset ${values.dataset}: ${(error as Error).message}`);
}
if (limitConversations) conversations = conversations.slice(0, limitConversations);
// Questions without a gold answer cannot be judged: left out and counted.
let withoutGold = 0;
conversations = conversations
  .map((c) => {
    const answered = c.questions.filter((q) => q.answer.trim() !== '');
    withoutGold += c.questions.length - answered.length;
    return { ...c, questions: limitQuestions ? answered.slice(0, limitQuestions) : answered };
  })
  .filter((c) => c.questions.length > 0);
const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
if (questions === 0)
  refuse(`--dataset ${values.dataset} holds no question of categories 1–4 with a gold answer (qa[].answer)`);

// Tokens of the context, counted the same way for every stack (o200k_base); the models' own counts are their usage.
const tokenizer = createGptTokenizer();
const answerer = createChatClient(answerOptions, { temperature: 0, maxTokens: 512 });
const judge = createChatClient(judgeOptions, { temperature: 0, maxTokens: 256 });

/** The local embedder, warmed once with every turn and question (shared by mem and mem0). */
let embedder: (Embedder & { warm(texts: string[]): Promise<void> }) | undefined;
async function warmEmbedder(): Promise<Embedder> {
  if (!embedder) {
    embedder = cachedEmbedder(createLocalEmbedder());
    const texts = conversations.flatMap((c) => [
      ...c.turns.map((t) => t.content),
      ...c.questions.map((q) => q.question.slice(0, 4000)),
    ]);
    log(`embedding ${texts.length} texts with ${embedder.id}…`);
    const t0 = performance.now();
    await embedder.warm(texts);
    log(`embedded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return embedder;
}

/** One chat call, timed; the failure (never thrown) in words without the key. */
async function ask(
  client: ChatClient,
  system: string,
  user: string,
): Promise<{ answer: ChatAnswer; ms: number } | { answer?: undefined; failure: string; ms: number }> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const t0 = performance.now();
  try {
    const answer = await client.complete(messages);
    return { answer, ms: performance.now() - t0 };
  } catch (error) {
    return { failure: client.describeFailure(error).reason, ms: performance.now() - t0 };
  }
}

/** One question through a stack: retrieve, answer, judge. Every failure is recorded (and the label stays WRONG). */
async function answerOne(source: ContextSource, c: Conversation, q: Question): Promise<QuestionRecord> {
  const record: QuestionRecord = {
    conversation: c.id,
    question: q.question,
    category: q.category,
    gold: q.answer,
    answer: null,
    label: 'WRONG',
    items: 0,
    tokens: noTokens(),
  };
  let context: string;
  try {
    const got = await source.retrieve(c, q);
    context = got.context;
    record.items = got.items;
    record.retrieval_ms = got.ms;
    record.tokens.context = tokenizer.count(context);
  } catch (error) {
    record.failure = { kind: 'retrieval', reason: (error as Error).message };
    return record;
  }
  const answered = await ask(answerer, ANSWER_PROMPT, answerMessage(context, q.question));
  if (!answered.answer) {
    record.failure = { kind: 'answer-endpoint', reason: answered.failure };
    return record;
  }
  record.answer_ms = answered.ms;
  record.tokens.answer_input = answered.answer.usage.inputTokens;
  record.tokens.answer_output = answered.answer.usage.outputTokens;
  if (answered.answer.refusal) {
    record.failure = { kind: 'answer-refused', reason: `the model refused: ${answered.answer.refusal}` };
    return record;
  }
  record.answer = cleanAnswer(answered.answer.content);
  const judged = await ask(judge, JUDGE_PROMPT, judgeMessage(q.question, q.answer, record.answer));
  if (!judged.answer) {
    record.failure = { kind: 'judge-endpoint', reason: judged.failure };
    return record;
  }
  record.tokens.judge_input = judged.answer.usage.inputTokens;
  record.tokens.judge_output = judged.answer.usage.outputTokens;
  const read = readJudgeLabel(judged.answer.content);
  if (!read) {
    const said = judged.answer.content.replace(/\s+/g, ' ').slice(0, 160);
    record.failure = { kind: 'judge-unreadable', reason: `no CORRECT or WRONG label in the judge's answer "${said}"` };
    return record;
  }
  record.label = read.label;
  if (read.lenient) record.lenient = true;
  return record;
}

async function runStack(name: QaStack): Promise<StackResult> {
  if (name === 'mem0') {
    const missing = peerMissing('mem0');
    if (missing) return { name, skipped: missing };
  }
  let source: ContextSource;
  try {
    source = await openContextSource(name, conversations, k, () => embedder!);
  } catch (error) {
    return { name, skipped: `could not open: ${(error as Error).message}` };
  }
  const records: QuestionRecord[] = [];
  try {
    for (const c of conversations) {
      for (const q of c.questions) {
        records.push(await answerOne(source, c, q));
        if (records.length % 25 === 0) {
          const right = records.filter((r) => r.label === 'CORRECT').length;
          log(`${name}: ${records.length}/${questions} questions, ${right} correct so far`);
        }
      }
    }
  } finally {
    await source.close();
  }
  return summariseStack(name, records, source.refused?.size);
}

const results: StackResult[] = [];
for (const name of stacks as QaStack[]) {
  if ((name === 'mem' || (name === 'mem0' && !peerMissing('mem0'))) && !embedder) await warmEmbedder();
  log(`${name}: answering ${questions} questions…`);
  results.push(await runStack(name));
}

const ran = results.filter((r): r is StackSummary => !isSkipped(r));
const categories = [...new Set(ran.flatMap((r) => Object.keys(r.by_category)))];
const fmt = (x: number) => (Number.isFinite(x) ? x : null);
const table: BenchTable = {
  columns: [
    'stack',
    'questions',
    'J',
    ...categories.map((c) => `J ${c}`),
    'context tok/q',
    'answer in/out tok/q',
    'judge in/out tok/q',
    'retrieval p50/p95 ms',
    'answer p50/p95 ms',
    'failures',
    'skipped',
  ],
  rows: results.map((r) => {
    if (isSkipped(r)) return [r.name, ...Array<null>(categories.length + 9).fill(null), r.skipped];
    const t = r.tokens.per_question;
    const kinds = Object.entries(r.failures.by_kind).map(([kind, n]) => `${kind} ${n}`);
    return [
      r.name,
      r.questions,
      fmt(r.j),
      ...categories.map((c) => fmt(r.by_category[c]?.j ?? Number.NaN)),
      t.context,
      `${t.answer_input} / ${t.answer_output}`,
      `${t.judge_input} / ${t.judge_output}`,
      `${r.retrieval_ms.p50} / ${r.retrieval_ms.p95}`,
      `${r.answer_ms.p50} / ${r.answer_ms.p95}`,
      r.failures.count === 0 ? 0 : `${r.failures.count} (${kinds.join(', ')})`,
      null,
    ];
  }),
};
const host = (url: string) => new URL(url).host;
const CONTEXT_NOTES: Record<QaStack, string> = {
  mem: `mem — the top ${k} memories of a search for the question (SQLite + local embedder), each with its time`,
  'full-context': "full-context — every turn of the conversation under its session's time",
  mem0: `mem0 — the mem0 peer's top ${k} turns on the same vectors, each with its time`,
};
const notes = [
  `${questions} questions of LoCoMo categories 1–4 (category 5, adversarial, left out as in the mem0 paper)${withoutGold > 0 ? `; ${withoutGold} without a gold answer left out` : ''}; answer model ${answerOptions.model} at ${host(answerUrl)}, judge ${judgeOptions.model} at ${host(judgeUrl)}, temperature 0.`,
  `Context: ${stacks.map((name) => CONTEXT_NOTES[name as QaStack]).join('; ')}.`,
  'J: share of questions the judge labelled CORRECT; a failed retrieval, answer or judging counts as WRONG and as a failure. Context tokens are o200k_base counts of the context text; answer and judge tokens are the endpoints’ reported usage. Search times exclude computing the question’s vector.',
  ...ran
    .filter((r) => r.judge_lenient > 0 || (r.refused_turns ?? 0) > 0)
    .map(
      (r) =>
        `${r.name}: ${r.judge_lenient} judge answers read leniently${r.refused_turns ? `; ${r.refused_turns} turns refused at ingest` : ''}.`,
    ),
];
const result = {
  dataset: values.dataset,
  questions,
  without_gold: withoutGold,
  k,
  answer_model: { model: answerOptions.model, host: host(answerUrl) },
  judge_model: { model: judgeOptions.model, host: host(judgeUrl) },
  stacks: results,
};
saveReport(
  {
    bench: 'qa',
    title: `Answer accuracy (${values.dataset}, ${questions} questions, answer ${answerOptions.model}, judge ${judgeOptions.model})`,
    table,
    chart: {
      title: 'J (LLM-as-a-judge) per stack',
      unit: '',
      note: 'higher is better',
      bars: ran.filter((r) => Number.isFinite(r.j)).map((r) => ({ label: r.name, value: r.j })),
    },
    notes,
    data: result,
  },
  values.out,
);
if (values.json) console.log(JSON.stringify(result));
else {
  console.log(renderText(table));
  for (const n of notes) console.log(`\n${n}`);
}
