/**
 * `mem bench <retrieval|scale|convo|server|crash|runner|cold-start|attack|writes|keyword|secrets|formation|graph|compaction|qa|report> [flags]`: runs a script of the
 * @mem/bench package (apps/bench/README.md) in a child process. The bench is a development dependency: it is found
 * through its package.json in a clone of the repository, and is not part of the published mem command.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from './command.js';
import { UsageError } from './context.js';

/** Each benchmark's script, relative to the @mem/bench package folder. */
const SCRIPTS: Record<string, string> = {
  retrieval: 'src/retrieval.ts',
  scale: 'src/scale.ts',
  convo: 'src/convo.ts',
  server: 'src/server.ts',
  crash: 'src/crash.ts',
  'cold-start': 'src/cold-start.ts',
  runner: 'src/runner.ts',
  attack: 'src/attack.ts',
  writes: 'src/writes.ts',
  keyword: 'src/keyword.ts',
  secrets: 'src/secrets.ts',
  formation: 'src/formation.ts',
  graph: 'src/graph.ts',
  compaction: 'src/compaction.ts',
  qa: 'src/qa.ts',
  report: 'src/report-page.ts',
};

/** This package's folder (from src/ or dist/ alike), which the benches that run the mem command read. */
const CLI_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The @mem/bench package folder, or null where it is not installed (the published mem command). */
function benchDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('@mem/bench/package.json'));
  } catch {
    return null;
  }
}

export const benchCommands: Record<string, Command> = {
  bench: {
    summary:
      'run a benchmark (retrieval, scale, convo, server, crash, runner, cold-start, attack, writes, keyword, secrets, formation, graph, compaction, qa) or render their reports into one page (see apps/bench/README.md)',
    usage:
      'mem bench retrieval --dataset <locomo.json> [--stacks mem,keyword-only,bm25,vector-only,hashing,mem0,langgraph]\n' +
      '                    [--cv] [--no-recall-block] [--weights 1:0.1,…] [--cache <file>] [--json]\n' +
      '       mem bench scale [--n 10000,100000] [--store sqlite,in-memory,lancedb,lancedb-flat,postgres,mem0,langgraph]\n' +
      '                 [--curve] [--queries 200] [--reuse <earlier scale report .json>] [--json]\n' +
      '                 (--curve: 10k/100k/1M, each run in its own process)\n' +
      '       mem bench convo [--sizes 1000,10000,100000] [--json]\n' +
      '       mem bench server [--duration 20] [--connections 16] [--runs 1] [--embedder hashing|local] [--json]\n' +
      '       mem bench crash [--kills 200] [--soak 20] [--stores sqlite,markdown,postgres] [--processes 8] [--json]\n' +
      "       mem bench cold-start [--runs 30] [--json]   (the mem command's start-up time, built vs source)\n" +
      '       mem bench attack [--scenarios flood,slow,fairness,replicas] [--duration 10] [--flood-connections 16]\n' +
      '                  [--slow 50] [--idle 1000] [--window 15] [--headers-timeout 10000] [--large 200] [--small 30]\n' +
      '                  [--interval 100] [--embed-ms 2] [--writes 300] [--json]   (issue 15: protection on vs off;\n' +
      '                  replicas need MEM_BENCH_POSTGRES_URL)\n' +
      '       mem bench writes [--writes 400] [--rounds 2] [--clients 8] [--stores sqlite,lancedb,postgres] [--json]\n' +
      '                  (concurrent single writes through mem serve; postgres needs MEM_BENCH_POSTGRES_URL)\n' +
      '       mem bench keyword [--dataset <locomo.json>] [--n 100000] [--queries 200] [--json]\n' +
      '                  (the SQLite pruned keyword index against FTS5 bm25(): top-10 overlap and time)\n' +
      '       mem bench secrets [--code node_modules/.pnpm] [--datasets a.json,b.json] [--runs 5] [--no-secretlint] [--json]\n' +
      '                  (the secret scanner: µs per KB on chat, code and hostile text; findings per MB on real code)\n' +
      '       mem bench formation [--stores in-memory,sqlite] [--only id,…] [--limit N] [--llm-url URL --llm-model M]\n' +
      '                  [--concurrency 1] [--json]   (distill over multi-session dialogues: current facts, stale, duplicates,\n' +
      '                  false memories, secrets, as-of; key in MEM_LLM_API_KEY)\n' +
      '       mem bench graph [--entities 100000] [--relations 500000] [--store sqlite,postgres] [--queries 200] [--json]\n' +
      '                  (the memory graph at scale: ingest, 2-hop neighbours, resolving a new entity, open and search)\n' +
      '       mem bench compaction --dataset <locomo.json> [--dataset …] [--budgets 256,512] [--window 2000] [--windows 4]\n' +
      '                  [--summarizers template,extractive,extractive+embed,llm-lead,llm-down] [--json]   (names, numbers\n' +
      '                  and dates of archived turns still in the summary, per summariser and budget)\n' +
      '       mem bench qa --dataset <locomo.json> --llm-url URL --llm-model M [--judge-url URL --judge-model M]\n' +
      '                  [--stacks mem,full-context,mem0] [--limit-conversations N] [--limit-questions N] [--k 10]\n' +
      '                  [--timeout 60000] [--json]   (answer accuracy: the LLM-as-a-judge J score per stack;\n' +
      '                  keys in MEM_LLM_API_KEY and MEM_JUDGE_API_KEY)\n' +
      '       mem bench report [--dir bench-results]   (the latest report of each bench on one page)',
    passthrough: true,
    async run(ctx) {
      const [name, ...args] = ctx.args;
      const rel = name ? SCRIPTS[name] : undefined;
      if (!rel) throw new UsageError(`give a benchmark: ${Object.keys(SCRIPTS).join(', ')}.`);
      const dir = benchDir();
      if (!dir)
        throw new UsageError(
          `the benchmarks are not part of the installed mem command: they need the benchmark data and tools of the repository (the @mem/bench package). Run them from a clone: pnpm mem bench ${name} ….`,
        );
      const tsx = createRequire(import.meta.url).resolve('tsx');
      const child = spawn(process.execPath, ['--conditions=dev-source', '--import', tsx, join(dir, rel), ...args], {
        stdio: 'inherit',
        env: { ...(ctx.io.env as NodeJS.ProcessEnv), MEM_BENCH_CLI_DIR: CLI_DIR },
      });
      return new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    },
  },
};
