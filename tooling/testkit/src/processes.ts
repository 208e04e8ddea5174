/**
 * Real OS processes for the crash and concurrency harnesses: a child program (a TypeScript entry bundled once with
 * esbuild, or run through tsx when esbuild is missing), started with an IPC channel, whose messages are collected
 * until the process has exited and its channel has closed. Nothing here imports vitest, so children and
 * `apps/bench` use it too.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A runnable child: the file node starts, its flags, and a cleanup for the bundle folder. */
export interface ChildProgram {
  file: string;
  execArgv: string[];
  cwd: string;
  /** 'bundle' (esbuild, plain node: fast start) or 'tsx' (from source, about a second per start). */
  mode: 'bundle' | 'tsx';
  dispose(): void;
}

interface EsbuildPluginBuild {
  onResolve(
    options: { filter: RegExp; namespace?: string },
    callback: (args: {
      path: string;
      kind: string;
      resolveDir: string;
      pluginData?: { direct?: boolean };
    }) => Promise<unknown> | unknown,
  ): void;
  onLoad(options: { filter: RegExp; namespace: string }, callback: () => unknown): void;
  resolve(
    path: string,
    options: { kind: string; resolveDir: string; pluginData: unknown },
  ): Promise<{ path: string; errors: unknown[] }>;
}

interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** The esbuild that tsx ships with (so no package needs a dependency of its own), or null. */
function loadEsbuild(from: string): Esbuild | null {
  for (const base of [from, import.meta.url]) {
    try {
      const req = createRequire(base);
      return createRequire(req.resolve('tsx/package.json'))('esbuild') as Esbuild;
    } catch {
      // try the next place
    }
  }
  return null;
}

/** Native modules stay where they are installed (imported by absolute URL); they cannot be bundled. */
const NATIVE = /^(better-sqlite3|sqlite-vec|@lancedb\/lancedb|onnxruntime-node|sharp)$/;

/**
 * Children never call the test framework, but @mem/testkit's index pulls in the suites, which import vitest:
 * in a bundled child it is replaced by inert names (importing the real one costs half a second per start).
 */
const VITEST_STUB = [
  'describe',
  'it',
  'test',
  'expect',
  'beforeAll',
  'afterAll',
  'beforeEach',
  'afterEach',
  'inject',
  'vi',
]
  .map((n) => `export const ${n} = () => { throw new Error('vitest is not available in a child process'); };`)
  .join('\n');

/**
 * Prepare a child program from a TypeScript entry. With esbuild (found through tsx) the entry is bundled once into a
 * temporary folder with the `dev-source` condition and run by plain node; otherwise it runs through tsx.
 */
export async function bundleChild(entry: string): Promise<ChildProgram> {
  const cwd = dirname(entry);
  const esbuild = loadEsbuild(pathToFileURL(entry).href);
  if (esbuild === null) {
    return {
      file: entry,
      execArgv: ['--conditions=dev-source', '--import', 'tsx'],
      cwd,
      mode: 'tsx',
      dispose() {},
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mem-child-'));
  const plugin = {
    name: 'mem-child',
    setup(build: EsbuildPluginBuild) {
      build.onResolve({ filter: /^vitest$/ }, () => ({ path: 'vitest', namespace: 'mem-stub' }));
      build.onLoad({ filter: /.*/, namespace: 'mem-stub' }, () => ({ contents: VITEST_STUB, loader: 'js' }));
      build.onResolve({ filter: NATIVE }, async (args) => {
        if (args.pluginData?.direct) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: { direct: true },
        });
        if (found.errors.length > 0) return { errors: found.errors };
        return { path: pathToFileURL(found.path).href, external: true };
      });
    },
  };
  const file = join(dir, 'child.mjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['dev-source'],
    minify: true,
    keepNames: true,
    logLevel: 'silent',
    plugins: [plugin],
    // Bundled CommonJS dependencies may call require() at run time.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return { file, execArgv: [], cwd, mode: 'bundle', dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A started child and what it said. */
export interface ChildRun<M> {
  child: ChildProcess;
  messages: M[];
  stderr: string[];
  /** Resolves once the process has exited and its IPC channel is closed (so every message sent has arrived). */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnChild<M>(
  program: ChildProgram,
  env: Record<string, string>,
): { run: ChildRun<M>; listen(onMessage?: (message: M, run: ChildRun<M>) => void): void } {
  const child = fork(program.file, [], {
    execArgv: program.execArgv,
    cwd: program.cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const run: ChildRun<M> = {
    child,
    messages: [],
    stderr: [],
    closed: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
  };
  child.stderr?.on('data', (d: Buffer) => run.stderr.push(d.toString()));
  let listener: ((message: M, run: ChildRun<M>) => void) | undefined;
  child.on('message', (m: M) => {
    run.messages.push(m);
    listener?.(m, run);
  });
  return { run, listen: (onMessage) => (listener = onMessage) };
}

/** Start `program` with `settings` as JSON in MEM_CHILD; `onMessage` sees each message as it arrives. */
export function startChild<M>(
  program: ChildProgram,
  settings: unknown,
  onMessage?: (message: M, run: ChildRun<M>) => void,
): ChildRun<M> {
  const { run, listen } = spawnChild<M>(program, { MEM_CHILD: JSON.stringify(settings) });
  listen(onMessage);
  return run;
}

/**
 * A child started ahead of time: it loads its code and then waits for its settings over IPC, so that the start-up
 * of the next writer overlaps with the checks of the previous one. `start` hands the settings over (once);
 * `cancel` ends a child that is no longer needed.
 */
export interface WarmChild<M> {
  start(settings: unknown, onMessage?: (message: M, run: ChildRun<M>) => void): ChildRun<M>;
  cancel(): Promise<void>;
}

export function warmChild<M>(program: ChildProgram): WarmChild<M> {
  const { run, listen } = spawnChild<M>(program, { MEM_CHILD_WAIT: '1' });
  return {
    start(settings, onMessage) {
      listen(onMessage);
      run.child.send({ settings });
      return run;
    },
    async cancel() {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.closed;
    },
  };
}

/** Child side: the settings the parent gave (in MEM_CHILD, or as the first IPC message of a warm child). */
export async function childSettings<S>(): Promise<S> {
  const raw = process.env.MEM_CHILD;
  if (raw) return JSON.parse(raw) as S;
  if (process.env.MEM_CHILD_WAIT && process.send) {
    return new Promise<S>((resolve) => {
      const onMessage = (m: { settings?: S }) => {
        if (m && typeof m === 'object' && 'settings' in m) {
          process.off('message', onMessage);
          resolve(m.settings as S);
        }
      };
      process.on('message', onMessage);
      // A parent that goes away before handing over the settings leaves nothing for this child to do.
      process.once('disconnect', () => process.exit(1));
    });
  }
  throw new Error('MEM_CHILD is not set: this program is started by the crash/concurrency harness.');
}

/** Child side: send a message and resolve once it is handed to the channel (so a SIGKILL after it cannot lose it). */
export function sendToParent(message: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('no IPC channel: this program is started by the crash/concurrency harness.'));
      return;
    }
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/** Wait for a promise, failing at a deadline (never a fixed sleep). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Seeded, so that a failing run can be repeated with its seed (the generator of @mem/core). */
export { seededRandom } from '@mem/core/adapter';
