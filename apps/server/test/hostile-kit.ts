/**
 * Shared pieces of the hostile-input and isolation tests: a real server on 127.0.0.1 over the embedded default
 * stack (SQLite file + Markdown transcripts and notebooks) with the hashing embedder, API keys, and the checks
 * that tell a clean refusal from a crash or a leaked internal message.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, type MemErrorCode, type Role, type Stack } from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteStore, createSqliteStructuredStores } from '@mem/store-sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ErrorCode } from '../src/errors.js';
import { KeyStore } from '../src/keys.js';
import { silentLogger } from '../src/log.js';
import { type RunningServer, startServer } from '../src/server.js';

/** Every code a refusal may carry: MemError's own plus the transport's. */
export const KNOWN_CODES = new Set<string>([
  ...([
    'INVALID_KEY',
    'FORBIDDEN_KEY',
    'KEY_TAKEN',
    'SECRET_DETECTED',
    'NOT_FOUND',
    'CONFLICT',
    'ALREADY_RATED',
    'INVALID_INPUT',
    'FORBIDDEN',
    'TOO_LARGE',
    'EMBEDDING_MISMATCH',
    'CAPABILITY_MISSING',
  ] satisfies MemErrorCode[]),
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'FORBIDDEN_HOST',
  'FORBIDDEN_ORIGIN',
  'SHUTTING_DOWN',
] satisfies ErrorCode[]);

/** What must never reach a client: stack frames, driver or runtime error names, file system paths. */
export const INTERNAL_LEAK =
  /\bat [^\s]+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|SqliteError|SQLITE_[A-Z]|fts5:|no such column|syntax error near|sqlite-vec|TypeError|ReferenceError|RangeError|SyntaxError: |ZodError|node_modules|Cannot read propert|is not a function|is not iterable|undefined is not|\[object Object\]|Maximum call stack|\bINTERNAL\b/;

export interface Door {
  name: 'http' | 'mcp' | 'cli';
  tried: number;
}

export interface Env {
  dir: string;
  stack: Stack;
  server: RunningServer;
  keys: KeyStore;
  key: (space: string, agentId: string, role: Role) => Promise<string>;
  close: () => Promise<void>;
}

/** A server with keys over SQLite + Markdown in a fresh folder, rate limiting off (the tests send bursts). */
export async function startEnv(prefix: string, bodyLimitBytes?: number): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
  const { transcripts, notebooks } = createMarkdownStores({ root: join(dir, 'ws') });
  const stack = createStack({
    knowledge,
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    services: [episodicServices(), proceduralServices()],
    embedder: createHashingEmbedder(),
    transcripts,
    notebooks,
  });
  const keys = KeyStore.open(':memory:');
  const server = await startServer({
    stack,
    keys,
    requireAuth: true,
    port: 0,
    defaultPrincipal: { space: 'default', agentId: 'main', role: 'worker' },
    logger: silentLogger,
    rateLimit: false,
    closeStack: true,
    ...(bodyLimitBytes ? { bodyLimitBytes } : {}),
  });
  return {
    dir,
    stack,
    server,
    keys,
    key: async (space, agentId, role) => (await keys.create({ space, agentId, role })).key,
    close: async () => {
      await server.close();
      keys.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  text: string;
  body: any;
}

/** One HTTP request; the body is sent as given (a string or bytes are raw, anything else JSON). */
export async function send(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const h: Record<string, string> = { authorization: `Bearer ${key}`, ...headers };
  let payload: string | Uint8Array | undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    payload = body;
    // A raw body is JSON (JSON Lines for the import) unless the caller names another type: what is refused is
    // then the body itself, not its type (test/exposure.test.ts covers the types).
    h['content-type'] ??= path.startsWith('/v1/import') ? 'application/x-ndjson' : 'application/json';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  const init = { method, headers: h, ...(payload !== undefined ? { body: payload } : {}) };
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, init);
  } catch (error) {
    // A pooled keep-alive socket the server closed a moment ago (the loaded test machine fires timers late):
    // the request never reached the server, so it is sent once more on a fresh socket.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw error;
    res = await fetch(`${base}${path}`, init);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // ndjson or empty
  }
  return { status: res.status, text, body: parsed };
}

/** Problems with an HTTP reply to hostile input: a 5xx, or a body that is not a clean `{code, message}`. */
export function httpProblem(r: Reply, expect: 'refused' | 'any' = 'any'): string | null {
  if (r.status >= 500) return `status ${r.status}: ${r.text.slice(0, 300)}`;
  if (expect === 'refused' && r.status < 400) return `expected a refusal, got ${r.status}: ${r.text.slice(0, 200)}`;
  if (r.status >= 400) {
    const b = r.body as { code?: unknown; message?: unknown };
    if (typeof b !== 'object' || b === null) return `status ${r.status} without a JSON body: ${r.text.slice(0, 200)}`;
    if (typeof b.code !== 'string' || !KNOWN_CODES.has(b.code)) return `unknown code ${String(b.code)}`;
    if (typeof b.message !== 'string' || b.message.length < 10) return `no clear message: ${r.text.slice(0, 200)}`;
    if (Object.keys(b).some((k) => k !== 'code' && k !== 'message')) return `extra fields: ${r.text.slice(0, 200)}`;
  }
  if (INTERNAL_LEAK.test(r.text)) return `internal detail leaked: ${r.text.slice(0, 300)}`;
  return null;
}

export type ToolReply = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };

/** An MCP client over streamable HTTP acting with `key`. */
export async function mcpClient(server: RunningServer, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'mem-hostile', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * Call a tool. A protocol-level refusal (the SDK rejects arguments that are not an object) counts as a clean
 * refusal too, as long as its message is clean: it is returned as an `isError` reply with code INVALID_INPUT.
 */
export async function tool(client: Client, name: string, args: unknown): Promise<ToolReply> {
  try {
    return (await client.callTool({ name, arguments: args as Record<string, unknown> })) as ToolReply;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      isError: true,
      content: [{ type: 'text', text: `PROTOCOL: ${message}` }],
      structuredContent: { error: { code: 'PROTOCOL', message } },
    };
  }
}

/** Problems with an MCP reply to hostile input. */
export function mcpProblem(r: ToolReply, expect: 'refused' | 'any' = 'any'): string | null {
  const text = r.content.map((c) => c.text ?? '').join('\n');
  if (expect === 'refused' && !r.isError) return `expected isError, got ${text.slice(0, 200)}`;
  if (r.isError) {
    const e = r.structuredContent?.error as { code?: unknown; message?: unknown } | undefined;
    if (!e) return `isError without {code, message}: ${text.slice(0, 200)}`;
    if (e.code === 'PROTOCOL') {
      // The SDK's own validation (e.g. -32602): fine when it says what is wrong and nothing internal.
      // …or a transport refusal of the HTTP endpoint (e.g. 413 TOO_LARGE), relayed by the SDK with its body.
      const relayed = /"code":"([A-Z_]+)"/.exec(String(e.message))?.[1];
      if (relayed ? !KNOWN_CODES.has(relayed) : !/-326\d\d|Invalid|invalid|expected/.test(String(e.message)))
        return `unclear protocol error: ${e.message}`;
    } else {
      if (typeof e.code !== 'string' || !KNOWN_CODES.has(e.code)) return `unknown code ${String(e.code)}`;
      if (e.code === 'INTERNAL' || e.code === 'STORE_CORRUPT') return `internal error: ${text.slice(0, 300)}`;
    }
    if (typeof e.message !== 'string' || e.message.length < 10) return `no clear message: ${text.slice(0, 200)}`;
  }
  if (INTERNAL_LEAK.test(text)) return `internal detail leaked: ${text.slice(0, 300)}`;
  return null;
}

/** A fixed seed for every property, so that a failure replays. */
export const SEED = 20261129;
