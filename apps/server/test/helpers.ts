import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryTranscriptStore,
  createStack,
  type Principal,
  type Stack,
} from '@mem/core';
import { silentLogger } from '../src/log.js';
import { type RunningServer, type ServerOptions, startServer } from '../src/server.js';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
const CLI_MAIN = join(ROOT, 'apps', 'cli', 'src', 'main.ts');
const MEM_BIN = join(ROOT, 'apps', 'cli', 'bin', 'mem-dev.js');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'mem-cli.ts');

/** True once apps/cli/src/main.ts lists the server commands (then `mem serve|mcp|keys` is the real CLI). */
export const cliHasServerCommands = readFileSync(CLI_MAIN, 'utf8').includes('serverCommands');

/** How to run `mem <args>` as a process: the real CLI when merged, else the test stand-in with the same flags. */
export function memProcess(args: string[]): { command: string; args: string[] } {
  if (cliHasServerCommands) return { command: process.execPath, args: [MEM_BIN, ...args] };
  const tsx = createRequire(import.meta.url).resolve('tsx');
  return { command: process.execPath, args: ['--conditions=dev-source', '--import', tsx, FIXTURE, ...args] };
}

export const worker: Principal = { space: 'default', agentId: 'main', role: 'worker' };

export function memoryStack(): Stack {
  return createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() });
}

/** `memoryStack` with an in-memory notebook and transcript store (the notebook, conversation and runner groups). */
export function agentStack(): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder(),
    notebooks: createInMemoryNotebookStore(),
    transcripts: createInMemoryTranscriptStore(),
  });
}

/** A listening server on 127.0.0.1 (port 0) over an in-memory store with the hashing embedder. */
export async function testServer(options: Partial<ServerOptions> = {}): Promise<RunningServer & { stack: Stack }> {
  const stack = options.stack ?? memoryStack();
  const server = await startServer({
    stack,
    port: 0,
    defaultPrincipal: worker,
    logger: silentLogger,
    closeStack: true,
    // The tests of routes run open (as `mem serve --open`) unless they bring keys.
    ...(options.keys || options.requireAuth ? {} : { open: true }),
    ...options,
  });
  return Object.assign(server, { stack });
}

export interface Call {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** fetch + JSON, with an optional bearer key. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; key?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    // Raw bodies are JSON, or JSON Lines for the import; a test that sends another type says so in `headers`.
    headers['content-type'] ??= path.startsWith('/v1/import') ? 'application/x-ndjson' : 'application/json';
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (export lines, HTML)
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Poll `check` until it returns a value other than undefined, or fail after `ms`. */
export async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
