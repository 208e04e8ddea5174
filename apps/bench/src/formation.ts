/**
 * Memory that forms itself, measured (issue 33, apps/bench/README.md): the dialogue set of src/formation-dialogues.ts
 * (two halves in different styles), each dialogue distilled session by session on a fresh stack (hashing embedder,
 * the in-memory store and a SQLite file), then probed: is the value said last current, the old one closed, one
 * memory per fact, nothing formed from small talk, tool results, pasted content, hypotheticals or other people,
 * no secret kept, the right value as of earlier dates; and how fast distill reads. The offline extractor always;
 * with `--llm-url URL --llm-model M` (key in MEM_LLM_API_KEY) also createLlmStatementExtractor of
 * @mem/summarizer-llm, on the first store of `--stores`.
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/formation.ts [--stores in-memory,sqlite]
 *        [--only id,id] [--limit N] [--llm-url URL --llm-model M] [--llm-timeout 60000] [--concurrency 1]
 *        [--json] [--out bench-results]
 */
import { parseArgs } from 'node:util';
import type { StatementExtractor } from '@mem/core/adapter';
import { createLlmStatementExtractor } from '@mem/summarizer-llm';
import type { Style } from './formation-data.js';
import { checkDialogues, DIALOGUES } from './formation-dialogues.js';
import { runDialogues, STORE_KINDS, type StoreKind, storeMaker } from './formation-run.js';
import { type DialogueScore, type Summary, summarise } from './formation-score.js';
import { renderText, saveReport } from './report.js';

const { values } = parseArgs({
  options: {
    stores: { type: 'string', default: 'in-memory,sqlite' },
    only: { type: 'string' },
    limit: { type: 'string' },
    'llm-url': { type: 'string' },
    'llm-model': { type: 'string' },
    'llm-timeout': { type: 'string', default: '60000' },
    concurrency: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const log = (s: string) => process.stderr.write(`${s}\n`);
const refuse = (s: string): never => {
  log(`INVALID_INPUT: ${s}`);
  process.exit(2);
};
const positive = (flag: string, text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) refuse(`--${flag} takes a positive whole number, got "${text}"`);
  return n;
};

const problems = checkDialogues(DIALOGUES);
if (problems.length > 0) refuse(`the dialogue set is not sound:\n  ${problems.join('\n  ')}`);
let dialogues = [...DIALOGUES];
if (values.only) {
  const ids = values.only.split(',').map((s) => s.trim());
  const unknown = ids.filter((id) => !dialogues.some((d) => d.id === id));
  if (unknown.length > 0) refuse(`--only names unknown dialogues: ${unknown.join(', ')}`);
  dialogues = dialogues.filter((d) => ids.includes(d.id));
}
if (values.limit) dialogues = dialogues.slice(0, positive('limit', values.limit));
const stores = values.stores!.split(',').map((s) => s.trim()) as StoreKind[];
for (const s of stores) if (!STORE_KINDS.includes(s)) refuse(`--stores takes ${STORE_KINDS.join(', ')}, got "${s}"`);
if (stores.length === 0) refuse('--stores names no store');
const concurrency = positive('concurrency', values.concurrency!);
const llmTimeout = positive('llm-timeout', values['llm-timeout']!);
if (values['llm-url'] && !values['llm-model']) refuse('--llm-url needs --llm-model (the chat model to read with)');
if (values['llm-model'] && !values['llm-url']) refuse('--llm-model needs --llm-url (the endpoint that serves it)');

interface Arm {
  extractor: string;
  model: string | null;
  store: StoreKind;
  make?: () => StatementExtractor;
}
const arms: Arm[] = stores.map((store) => ({ extractor: 'offline', model: null, store }));
if (values['llm-url']) {
  const model = values['llm-model']!;
  arms.push({
    extractor: `llm:${model}`,
    model,
    store: stores[0]!,
    make: () =>
      createLlmStatementExtractor({
        baseURL: values['llm-url']!,
        model,
        timeoutMs: llmTimeout,
        ...(process.env.MEM_LLM_API_KEY ? { apiKey: process.env.MEM_LLM_API_KEY } : {}),
      }),
  });
}

/** What the JSON keeps of a dialogue: its memories, and every probe that went wrong with what was current. */
function detail(s: DialogueScore) {
  return {
    id: s.id,
    style: s.style,
    formed: s.formed,
    current: s.current,
    decisions: s.decisions,
    failures: s.failures,
    memories: s.memories.map((m) => ({ content: m.content, validFrom: m.validFrom, validTo: m.validTo })),
    missed: s.probes.filter((p) => !p.retrieved).map(({ dialogue: _, ...p }) => p),
    not_retrieved_but_found: s.probes.filter((p) => !p.retrieved && p.found).map((p) => p.query),
    stale: s.probes.filter((p) => p.stale).map((p) => ({ query: p.query, current: p.current })),
    duplicates: s.probes.filter((p) => p.matching > 1).map((p) => ({ query: p.query, current: p.current })),
    as_of_missed: s.asOf.filter((q) => !q.ok).map(({ dialogue: _, ...q }) => q),
    false_memories: s.falseMemories,
    secrets_stored: s.secretsStored,
  };
}

const runs: {
  extractor: string;
  model: string | null;
  store: StoreKind;
  sets: Record<'all' | Style, Summary>;
  dialogues: ReturnType<typeof detail>[];
}[] = [];
for (const arm of arms) {
  const store = storeMaker(arm.store);
  const t0 = performance.now();
  try {
    const scores = await runDialogues({
      dialogues,
      store,
      ...(arm.make ? { extractor: arm.make() } : {}),
      concurrency,
      onDialogue: (done, total) => {
        if (done % 10 === 0 || done === total) log(`${arm.extractor} / ${arm.store}: ${done}/${total} dialogues`);
      },
    });
    const of = (style: Style) => summarise(scores.filter((s) => s.style === style));
    runs.push({
      extractor: arm.extractor,
      model: arm.model,
      store: arm.store,
      sets: { all: summarise(scores), chat: of('chat'), prose: of('prose') },
      dialogues: scores.map(detail),
    });
    log(`${arm.extractor} / ${arm.store}: ${Math.round(performance.now() - t0)} ms`);
  } finally {
    store.dispose();
  }
}

const fmt = (v: number | null) => (v === null ? null : v);
const table = {
  columns: [
    'extractor',
    'store',
    'set',
    'dialogues',
    'probes',
    'current acc.',
    'found',
    'stale',
    'duplicates',
    'false memories',
    'secrets',
    'as-of acc.',
    'msg/s',
    'tokens in/out',
  ],
  rows: runs.flatMap((r) =>
    (['all', 'chat', 'prose'] as const)
      .filter((set) => r.sets[set].dialogues > 0)
      .map((set) => {
        const s = r.sets[set];
        return [
          r.extractor,
          r.store,
          set === 'all' ? 'all' : `${set} half`,
          s.dialogues,
          s.probes,
          fmt(s.current_accuracy),
          fmt(s.current_found),
          `${s.stale.count}/${s.stale.formed}`,
          s.duplicates.count,
          s.false_memories.count,
          s.secrets_stored,
          fmt(s.as_of.accuracy),
          s.messages_per_s,
          `${s.tokens.input}/${s.tokens.output}`,
        ];
      }),
  ),
};
const notes = [
  `${dialogues.length} dialogues (${dialogues.filter((d) => d.style === 'chat').length} chat, ${dialogues.filter((d) => d.style === 'prose').length} prose), ${dialogues.reduce((n, d) => n + d.sessions.length, 0)} sessions, one distill call per session; hashing embedder (256-d); a fresh stack per dialogue.`,
  'current acc.: probes whose expected value is in a current distilled memory that search returned for the probe query (a retraction probe: the retracted value was formed and holds in no current memory); found: the same over every current distilled memory of the dialogue.',
  'stale: probes where a current memory still holds an old value / probes whose old value was formed at all (the others cannot go stale); duplicates: probes with more than one current memory of the expected value; false memories: formed memories matching a forbidden pattern (small talk, tool results and pasted content, hypotheticals, other people, the assistant); secrets: planted credentials found in any formed memory (must be 0).',
  ...runs.flatMap((r) => {
    const s = r.sets.all;
    const kinds = Object.entries(s.by_kind)
      .map(([k, v]) => `${k} ${v.accuracy} (${v.probes})`)
      .join(', ');
    const classes = Object.entries(s.false_memories.by_class)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return [
      `${r.extractor} / ${r.store}: accuracy by kind ${kinds}; false memories ${classes || 'none'}; decisions ${JSON.stringify(s.decisions)}; failures ${JSON.stringify(s.failures)}; ${s.formed} memories formed, ${s.current} current.`,
    ];
  }),
];
const result = { dialogues: dialogues.length, runs };
saveReport(
  {
    bench: 'formation',
    title: 'Memory formation: distill over multi-session dialogues',
    table,
    chart: {
      title: 'Current-fact accuracy',
      unit: 'share of probes',
      note: 'higher is better',
      bars: runs.flatMap((r) =>
        (['all', 'chat', 'prose'] as const)
          .filter((set) => r.sets[set].current_accuracy !== null)
          .map((set) => ({ label: `${r.extractor} ${r.store} ${set}`, value: r.sets[set].current_accuracy! })),
      ),
    },
    notes,
    data: result,
  },
  values.out,
);
if (values.json) console.log(JSON.stringify(result));
else {
  console.log(renderText(table));
  for (const n of notes.slice(3)) console.log(`\n${n}`);
}
