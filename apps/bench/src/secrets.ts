/**
 * The secret scanner's cost and precision (issue 38, apps/bench/README.md):
 * - speed: µs per KB of mem's own rules (and of the secretlint scanner the CLI and server add) on benign text (chat
 *   turns, source code) and on hostile text (each of the testkit's hostile units repeated to 64 KB: the inputs that
 *   make a backtracking rule re-read what it read); median of `--runs`;
 * - false positives: every .js/.mjs/.cjs/.ts/.mts/.cts/.py file of the packages in node_modules (code no one here
 *   wrote) and every turn of the development sets, scanned as a write would be: findings per MB, by kind, and where
 *   (file and line, never the value), so that each can be checked by hand;
 * - true positives: the examples table (tooling/testkit/src/secret-examples.ts) in five dresses each (a sentence, JSON,
 *   YAML, a shell export, a Markdown code block).
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/secrets.ts [--code node_modules/.pnpm]
 *        [--datasets ../shared/data/locomo10.json,../shared/data/beam128k-as-locomo.json] [--runs 5] [--json]
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findSecrets, type SecretScanner } from '@mem/core/adapter';
import { DRESSED_EXAMPLES, HOSTILE_UNITS, SECRET_EXAMPLES } from '@mem/testkit/secret-examples';
import { loadLocomo } from './locomo.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    code: { type: 'string', default: 'node_modules/.pnpm' },
    datasets: { type: 'string', default: '../shared/data/locomo10.json,../shared/data/beam128k-as-locomo.json' },
    runs: { type: 'string', default: '5' },
    secretlint: { type: 'boolean', default: true },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
  allowNegative: true,
});
const log = (s: string) => process.stderr.write(`${s}\n`);
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  log(`INVALID_INPUT: --runs takes a positive whole number, got "${values.runs}"`);
  process.exit(2);
}

const CODE_FILE = /\.(?:[cm]?js|[cm]?ts|py)$/;
const MB = 1024 * 1024;
/** A file is scanned in pieces of this size, as a long document is stored in chunks. */
const PIECE = 2_000_000;

/** Every code file under `root` (symbolic links followed once: pnpm links each package into many places). */
function codeFiles(root: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      const st = statSync(real, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(real);
      // Only packages from the registry: pnpm also links the workspace's own packages under node_modules.
      else if (st.isFile() && CODE_FILE.test(e.name) && real.includes('/node_modules/')) out.push(real);
    }
  };
  walk(root);
  return out.sort();
}

interface Hit {
  where: string;
  kind: string;
  line: number;
}

/** Scan texts as writes: findings by kind, the first hits, and the megabytes read. */
function falsePositives(items: Iterable<{ where: string; text: string }>) {
  const byKind: Record<string, number> = {};
  const hits: Hit[] = [];
  let bytes = 0;
  let flagged = 0;
  let texts = 0;
  let ms = 0;
  for (const { where, text } of items) {
    texts++;
    bytes += Buffer.byteLength(text);
    let any = false;
    for (let at = 0; at < text.length; at += PIECE) {
      const piece = text.slice(at, at + PIECE);
      const t0 = performance.now();
      const found = findSecrets(piece);
      ms += performance.now() - t0;
      for (const f of found) {
        byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
        if (hits.length < 200) hits.push({ where, kind: f.kind, line: f.line });
        any = true;
      }
    }
    if (any) flagged++;
  }
  const mb = bytes / MB;
  const findings = Object.values(byKind).reduce((a, b) => a + b, 0);
  return {
    texts,
    mb: round(mb, 1),
    flagged,
    findings,
    findings_per_mb: round(findings / mb, 3),
    us_per_kb: round((ms * 1000) / (bytes / 1024), 2),
    by_kind: byKind,
    hits,
  };
}

/** µs per KB of one scan function over a text: the median of `runs`. */
async function speed(scan: (text: string) => unknown, text: string): Promise<number> {
  const times: number[] = [];
  await scan(text); // warm
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await scan(text);
    times.push(performance.now() - t0);
  }
  return round((percentile(times, 50) * 1000) / (Buffer.byteLength(text) / 1024), 2);
}

const SIZE = 64 * 1024;
const grow = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

// --- inputs ---------------------------------------------------------------------------------------------------
const datasets = values
  .datasets!.split(',')
  .map((p) => p.trim())
  .filter(Boolean);
const turnsOf = (path: string) =>
  loadLocomo(path).flatMap((c) => c.turns.map((t) => ({ where: `${c.id}/${t.diaId}`, text: t.content })));
const files = codeFiles(values.code!);
log(`secrets: ${files.length} code files under ${values.code}`);
const codeItems = function* () {
  for (const f of files) yield { where: relative(values.code!, f), text: readFileSync(f, 'utf8') };
};

// --- speed ------------------------------------------------------------------------------------------------------
const benignChat =
  datasets.length > 0
    ? turnsOf(datasets[0]!)
        .map((t) => t.text)
        .join('\n')
        .slice(0, SIZE)
    : '';
let benignCode = '';
for (const f of files) {
  if (benignCode.length >= SIZE) break;
  benignCode += readFileSync(f, 'utf8');
}
benignCode = benignCode.slice(0, SIZE);

const scanners: { name: string; scan: (text: string) => unknown }[] = [
  { name: "mem's rules", scan: (t) => findSecrets(t) },
];
if (values.secretlint) {
  try {
    const { createSecretlintScanner } = (await import('@mem/secrets-secretlint')) as {
      createSecretlintScanner: () => SecretScanner;
    };
    const s = createSecretlintScanner();
    scanners.push({ name: 'secretlint preset', scan: (t) => s.scan([{ what: 'content', text: t }]) });
  } catch (error) {
    log(`secretlint scanner not measured: ${(error as Error).message}`);
  }
}
const speedRows: {
  scanner: string;
  chat: number;
  code: number;
  hostile_median: number;
  hostile_worst: number;
  worst_unit: string;
}[] = [];
for (const { name, scan } of scanners) {
  const hostile: { unit: string; us: number }[] = [];
  for (const unit of HOSTILE_UNITS) hostile.push({ unit, us: await speed(scan, grow(unit)) });
  hostile.sort((a, b) => a.us - b.us);
  const worst = hostile[hostile.length - 1]!;
  speedRows.push({
    scanner: name,
    chat: await speed(scan, benignChat),
    code: await speed(scan, benignCode),
    hostile_median: hostile[Math.floor(hostile.length / 2)]!.us,
    hostile_worst: worst.us,
    worst_unit: worst.unit,
  });
  log(`speed ${name}: done`);
}

// --- false positives --------------------------------------------------------------------------------------------
const code = falsePositives(codeItems());
log(`code: ${code.mb} MB, ${code.findings} findings`);
const sets = datasets.map((path) => ({ dataset: path, ...falsePositives(turnsOf(path)) }));

// --- true positives ---------------------------------------------------------------------------------------------
const DRESSES: ((s: string) => string)[] = [
  (s) => `For the record, ${s} is what we use.`,
  (s) => JSON.stringify({ note: s }),
  (s) => `config:\n  value: ${s}\n`,
  (s) => `# shell\n${s}\n`,
  (s) => `\`\`\`\n${s}\n\`\`\``,
];
let tpTotal = 0;
let tpFound = 0;
const missed: string[] = [];
for (const e of SECRET_EXAMPLES) {
  for (const text of e.caught) {
    for (const [i, dress] of DRESSES.entries()) {
      tpTotal++;
      if (findSecrets(dress(text)).some((f) => f.kind === e.kind)) tpFound++;
      else missed.push(`${e.kind} (dress ${i + 1})`);
    }
  }
}
for (const d of DRESSED_EXAMPLES) {
  tpTotal++;
  if (findSecrets(d.text).some((f) => f.kind === d.kind)) tpFound++;
  else missed.push(`${d.kind} ${d.how}`);
}

const result = {
  speed_us_per_kb: speedRows,
  code: { root: values.code, ...code },
  datasets: sets,
  true_positives: { examples: tpTotal, found: tpFound, rate: round(tpFound / tpTotal, 3), missed },
};

const table = {
  columns: ['text', 'MB', 'texts', 'flagged', 'findings / MB', 'µs / KB'],
  rows: [
    ['code in node_modules', code.mb, code.texts, code.flagged, code.findings_per_mb, code.us_per_kb],
    ...sets.map((s) => [s.dataset.split('/').pop()!, s.mb, s.texts, s.flagged, s.findings_per_mb, s.us_per_kb]),
  ],
};
saveReport(
  {
    bench: 'secrets',
    title: 'Secret scanner: cost and precision',
    table,
    notes: [
      ...speedRows.map(
        (r) =>
          `${r.scanner}: ${r.chat} µs/KB on chat turns, ${r.code} on code, hostile 64 KB texts median ${r.hostile_median} and worst ${r.hostile_worst} (${JSON.stringify(r.worst_unit)}).`,
      ),
      `True positives on the examples table in ${DRESSES.length} dresses: ${tpFound}/${tpTotal}.`,
    ],
    data: result,
  },
  values.out,
);
if (values.json) console.log(JSON.stringify(result));
else {
  console.log('speed (µs per KB, median)          chat    code    hostile median  hostile worst');
  for (const r of speedRows)
    console.log(
      `${r.scanner.padEnd(34)} ${String(r.chat).padEnd(7)} ${String(r.code).padEnd(7)} ${String(r.hostile_median).padEnd(15)} ${r.hostile_worst} (${JSON.stringify(r.worst_unit)})`,
    );
  console.log('\ntext                        MB      texts   flagged  findings/MB  by kind');
  for (const [name, r] of [
    ['code in node_modules', code],
    ...sets.map((s) => [s.dataset.split('/').pop()!, s] as const),
  ] as const)
    console.log(
      `${String(name).padEnd(27)} ${String(r.mb).padEnd(7)} ${String(r.texts).padEnd(7)} ${String(r.flagged).padEnd(8)} ${String(r.findings_per_mb).padEnd(12)} ${JSON.stringify(r.by_kind)}`,
    );
  console.log(`\ntrue positives: ${tpFound}/${tpTotal}${missed.length ? `; missed ${missed.join(', ')}` : ''}`);
}
