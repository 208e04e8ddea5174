/**
 * The HTTP server (node:http): the `/v1` API routed from the operation table, `POST /mcp`, the OpenAPI document,
 * health and readiness, and the web inspector. Auth, rate limits, body limits, request ids, one structured log
 * line per request, and a graceful shutdown that finishes in-flight requests.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MemError, type Principal, parseInput, type Stack } from '@mem/core';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { capConnections } from './connection-cap.js';
import { classify, HttpError } from './errors.js';
import { type FairEmbeddingOptions, inSpace, shareEmbedderFairly } from './fair-queue.js';
import { createRequestGuard, requireContentType } from './guard.js';
import { inspectorAssets } from './inspector.js';
import { KeyStore } from './keys.js';
import { jsonLogger, loggedPath, loggedTool, type ServerLogger } from './log.js';
import { createMcpServer, type McpOptions } from './mcp.js';
import { buildOpenApi } from './openapi.js';
import type { Operation, Services } from './operation.js';
import { defaultOperations, servicesOf } from './operations.js';
import type { RateBuckets } from './rate-limit.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';

export const DEFAULT_PORT = 7420;
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
export const DEFAULT_RATE = { ratePerSecond: 50, burst: 200 };
/** Failed key checks allowed per client address and per key id: a burst, refilled at `perMinute`. */
export const DEFAULT_AUTH_FAILURES = { burst: 10, perMinute: 10, delayMs: 1_000 };
export const DEFAULT_TIMEOUTS = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000 };
export const DEFAULT_MAX_CONNECTIONS = 256;
/** Most JSON-RPC messages in one MCP POST. */
export const DEFAULT_MAX_BATCH = 100;
/** A request costs one rate token per started 32 KiB of body (and at least one per batch element or import line). */
export const COST_BYTES = 32 * 1024;

export const SERVER_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
      .version;
  } catch {
    return '0.0.0';
  }
})();

export interface ServerOptions {
  stack: Stack;
  /** The operations served (default: every operation the stack has services for). */
  operations?: readonly Operation[];
  /** Notebook and conversation services, when the stack does not carry them itself. */
  services?: Services;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Run without keys, as `defaultPrincipal` (`mem serve --open`): loopback only, refused when an active key exists,
   * and over for good the moment one is created (checked on every request). Default false: every request needs a key.
   */
  open?: boolean;
  /** Host names (no port) the server answers to besides loopback and the listen address; `*` for any. */
  allowedHosts?: readonly string[];
  /** Browser origins allowed besides the server's own pages (`https://app.example.com`); `*` for any. */
  allowedOrigins?: readonly string[];
  /**
   * Failed key checks per client address and per key id before 429 (`false` turns it off). A 429 for failed checks
   * is answered after `delayMs` (default 1,000) and closes the connection, so a flood gets slower, not faster.
   */
  authFailures?: { burst: number; perMinute: number; delayMs?: number } | false;
  /** Slow clients: time to send the headers, the whole request, and how long an idle keep-alive socket lives (ms). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Most open connections (default 256); more are dropped at once. */
  maxConnections?: number;
  /** Most JSON-RPC messages in one MCP POST (default 100). */
  maxBatch?: number;
  /** How embedding is shared between spaces (round-robin slices); `false` leaves the embedder as it is. */
  fairEmbedding?: FairEmbeddingOptions | false;
  /** Default 7420; 0 picks a free port. */
  port?: number;
  /** Where API keys live. Without an active key the server runs open, on loopback only, as `defaultPrincipal`. */
  keys?: KeyStore | null;
  /** Who a request is when the server runs without keys (the CLI's --space/--agent/--role). */
  defaultPrincipal: Principal;
  /** Require a key even when none exists yet (every request is refused until one is created). */
  requireAuth?: boolean;
  /** Largest request body in bytes (default 4 MiB). */
  bodyLimitBytes?: number;
  /** Token bucket per key; `false` turns limiting off. Default 50 requests/s, bursts of 200. */
  rateLimit?: { ratePerSecond: number; burst: number } | false;
  /** Buckets shared by replicas (PostgreSQL); default: in this process. */
  rateBuckets?: RateBuckets | null;
  logger?: ServerLogger;
  /** How long shutdown waits for in-flight requests before cutting connections (ms). Default 10000. */
  shutdownTimeoutMs?: number;
  /** Close the stack when the server closes (default false: whoever opened it closes it). */
  closeStack?: boolean;
  /** Extra MCP set-up (prompts, resources) for each MCP session. */
  mcpExtend?: McpOptions['extend'];
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:7420 */
  url: string;
  host: string;
  port: number;
  /**
   * `keys`: every API request needs a bearer key; `open`: loopback only, as the default principal. Read it again
   * after a key is created: open mode ends then.
   */
  readonly auth: 'keys' | 'open';
  mcpUrl: string;
  inspectorUrl: string;
  http: Server;
  /** One line that says where the server listens and how it authenticates. */
  describe(): string;
  /** Stop accepting, finish in-flight requests, then close (the stack too when `closeStack`). Idempotent. */
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

interface RequestState {
  requestId: string;
  started: number;
  principal: Principal | null;
  keyId: string | null;
  operation: string | null;
  tool: string | null;
  /** The route template of the operation that served the request (what the log records, never the raw path). */
  route: string | null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; bytes that are not UTF-8 are refused instead of silently replaced. */
function utf8Text(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw new HttpError(
      400,
      'INVALID_INPUT',
      'The request body is not valid UTF-8: encode the text as UTF-8 (JSON bodies must be UTF-8).',
    );
  }
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** Start listening. Resolves once the port is bound. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? jsonLogger();
  const keys = options.keys ?? null;
  if (options.open && options.requireAuth)
    throw new MemError('INVALID_INPUT', 'Choose one: --open (no keys, loopback only) or --require-auth.');
  if (options.open && !isLoopback(host)) {
    throw new MemError(
      'FORBIDDEN',
      `Refusing to listen on ${host} without API keys (--open): anyone who can reach it would act as "${options.defaultPrincipal.agentId}" in space "${options.defaultPrincipal.space}". Listen on 127.0.0.1, or drop --open and use keys (mem keys create --space S --agent A --role worker).`,
    );
  }
  if (options.open && [...(options.allowedHosts ?? []), ...(options.allowedOrigins ?? [])].includes('*'))
    throw new MemError(
      'INVALID_INPUT',
      'An open server (--open) cannot answer to any Host or Origin ("*"): any web page could then act through it. Name the hosts and origins, or use keys.',
    );
  const activeAtStart = keys ? await keys.activeCount() : 0;
  if (options.open && activeAtStart > 0) {
    throw new MemError(
      'FORBIDDEN',
      `Refusing to run open (--open): ${activeAtStart} API key(s) exist, so the server must require them. Drop --open and send a key, or revoke every key first (mem keys list, mem keys revoke <id>).`,
    );
  }
  /** Open mode ends for good once a key exists: revoking it later does not re-open the server. */
  let openNow = options.open === true;
  const isOpen = async (): Promise<boolean> => {
    if (!openNow) return false;
    if (keys !== null && (await keys.activeCount()) > 0) {
      openNow = false;
      logger.log('warn', 'open mode ended: an API key exists, every request needs a key from now on', {});
    }
    return openNow;
  };
  const guard = createRequestGuard({
    listenHost: host,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  const failureLimit = options.authFailures === false ? null : (options.authFailures ?? DEFAULT_AUTH_FAILURES);
  const failureDelayMs = failureLimit ? (failureLimit.delayMs ?? DEFAULT_AUTH_FAILURES.delayMs) : 0;
  if (!(Number.isInteger(failureDelayMs) && failureDelayMs >= 0 && failureDelayMs <= 60_000)) {
    throw new MemError(
      'INVALID_INPUT',
      `authFailures.delayMs must be a whole number of ms from 0 to 60000 (got ${failureDelayMs}).`,
    );
  }
  const failures = new RateLimiter(
    failureLimit
      ? { ratePerSecond: failureLimit.perMinute / 60, burst: failureLimit.burst }
      : { ratePerSecond: 0, burst: 0 },
  );
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const unshare =
    options.fairEmbedding === false || !options.stack.embedder
      ? () => {}
      : shareEmbedderFairly(options.stack.embedder, options.fairEmbedding ?? {});
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const services = servicesOf(options.stack, options.services);
  const operations = options.operations ?? defaultOperations(options.stack, services);
  const router = new Router(operations);
  const toolNames = new Set(operations.flatMap((op) => (op.tool ? [op.tool.name] : [])));
  const limiter = new RateLimiter(
    options.rateLimit === false ? { ratePerSecond: 0, burst: 0 } : (options.rateLimit ?? DEFAULT_RATE),
    options.rateBuckets ?? null,
  );
  const openapi = JSON.stringify(buildOpenApi(operations, { version: SERVER_VERSION }));
  const assets = inspectorAssets();
  const inflight = new Set<ServerResponse>();
  let shuttingDown = false;
  let drained: (() => void) | null = null;

  // ---------- small helpers ----------

  function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const body = JSON.stringify(value);
    res.writeHead(status, {
      ...JSON_HEADERS,
      'content-length': String(Buffer.byteLength(body)),
      ...(shuttingDown ? { connection: 'close' } : {}),
      ...headers,
    });
    res.end(body);
  }

  function sendError(res: ServerResponse, state: RequestState, error: unknown): void {
    const c = classify(error, state.requestId);
    if (c.unexpected && clientGone(res, error)) {
      // The client went away (closed the tab, timed out, reset): not a server error, no stack.
      logger.log('debug', 'client aborted', {
        requestId: state.requestId,
        operation: state.operation,
        reason: (error as { code?: string } | null)?.code ?? 'aborted',
      });
      res.destroy();
      return;
    }
    if (c.unexpected) {
      logger.log('error', 'request failed', {
        requestId: state.requestId,
        operation: state.operation,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, c.status, c.body, c.headers);
  }

  function clientGone(res: ServerResponse, error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE') return true;
    if (error instanceof Error && error.message === 'aborted') return true;
    // A request whose body was read in full is destroyed too (autoDestroy): only an incomplete one means a gone client.
    return res.destroyed || (res.req.destroyed && !res.req.complete);
  }

  /** Read the body, at most `bodyLimit` bytes. Over the limit: drain what the client sends, then 413. */
  async function readBody(req: IncomingMessage): Promise<Buffer> {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    const tooLarge = () =>
      new HttpError(
        413,
        'TOO_LARGE',
        `The request body is over the limit of ${bodyLimit} bytes. Send less (split the content into several memories or import lines), or start the server with a larger --body-limit.`,
      );
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > bodyLimit;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > bodyLimit) over = true;
      if (over) {
        chunks.length = 0;
        // A client that keeps sending far past the limit is cut off instead of drained.
        if (size > bodyLimit * 4 + 1024 * 1024) {
          req.destroy();
          throw tooLarge();
        }
        continue;
      }
      chunks.push(chunk as Buffer);
    }
    if (over) throw tooLarge();
    return Buffer.concat(chunks);
  }

  /**
   * After a refusal, the unread body is drained when it is declared and within the limit (the connection stays
   * usable); otherwise the connection closes after the answer instead of reading whatever the client sends.
   */
  function discardBody(req: IncomingMessage, res: ServerResponse): void {
    if (req.readableEnded || req.destroyed) return;
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (!(Number.isFinite(declared) && declared <= bodyLimit) && !res.headersSent) res.setHeader('connection', 'close');
    req.resume();
  }

  async function readJsonObject(
    req: IncomingMessage,
    state: RequestState,
  ): Promise<Record<string, unknown> | undefined> {
    const raw = await readBody(req);
    await rateLimit(state, workCost(raw.length), 1);
    const text = utf8Text(raw);
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new HttpError(400, 'INVALID_INPUT', `The request body is not valid JSON: ${(e as Error).message}.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new HttpError(400, 'INVALID_INPUT', 'The request body must be a JSON object.');
    return value as Record<string, unknown>;
  }

  function bearer(req: IncomingMessage): string | null {
    const h = req.headers.authorization;
    if (h === undefined) return null;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m)
      throw new HttpError(401, 'UNAUTHORIZED', 'The Authorization header must read "Bearer <key>".', {
        'www-authenticate': 'Bearer realm="mem"',
      });
    return m[1]!;
  }

  /** The principal of a request: its key's, or the default one when the server runs open and no key is sent. */
  async function authenticate(req: IncomingMessage, state: RequestState): Promise<Principal> {
    const token = bearer(req);
    if (token === null) {
      if (await isOpen()) {
        state.principal = options.defaultPrincipal;
        return options.defaultPrincipal;
      }
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'An API key is required: send "Authorization: Bearer <key>" (create one with mem keys create).',
        {
          'www-authenticate': 'Bearer realm="mem"',
        },
      );
    }
    const verified = await checkKey(req, token);
    if (!verified) {
      throw new HttpError(401, 'UNAUTHORIZED', 'The API key is unknown, malformed or revoked.', {
        'www-authenticate': 'Bearer realm="mem", error="invalid_token"',
      });
    }
    state.principal = verified.principal;
    state.keyId = verified.keyId;
    return verified.principal;
  }

  /**
   * Verify a key, counting failures per client address and per key id. A check reserves one failure token from
   * both before scrypt runs (so a flood of wrong secrets runs out instead of holding the thread pool) and gives it
   * back when the key is good. A token already verified (cached, no scrypt) passes even while its id is limited.
   */
  async function checkKey(req: IncomingMessage, token: string) {
    if (!keys) return null;
    if (keys.isCached(token)) return keys.verify(token);
    const address = `addr:${req.socket.remoteAddress ?? 'unknown'}`;
    const id = KeyStore.idOf(token);
    // A tarpit: the refusal waits and then closes the connection, so that cheap refusals do not let a flood
    // send (and cost) more requests than the checks it replaced.
    const tooMany = async (retry: number, what: string) => {
      await new Promise((done) => setTimeout(done, failureDelayMs));
      return new HttpError(
        429,
        'RATE_LIMITED',
        `Too many failed key checks ${what}; retry in ${retry} s with a valid key.`,
        {
          'retry-after': String(retry),
          connection: 'close',
        },
      );
    };
    const a = failures.take(address);
    if (!a.ok) throw await tooMany(a.retryAfterSeconds, 'from this address');
    if (id !== null) {
      const b = failures.take(`id:${id}`);
      if (!b.ok) {
        failures.refund(address);
        throw await tooMany(b.retryAfterSeconds, 'for this key id');
      }
    }
    const verified = await keys.verify(token);
    if (verified) {
      failures.refund(address);
      if (id !== null) failures.refund(`id:${id}`);
    }
    return verified;
  }

  function callerOf(state: RequestState): string {
    return state.keyId ? `key:${state.keyId}` : `open:${state.principal?.space}/${state.principal?.agentId}`;
  }

  /**
   * Take `cost` tokens from the caller's bucket, of which `paid` were taken already (the one every request pays
   * before its body is read): 429 when they are not there yet, 413 when they never can be.
   */
  async function rateLimit(state: RequestState, cost = 1, paid = 0): Promise<void> {
    if (cost - paid <= 0 || !limiter.enabled) return;
    if (cost > limiter.burst) {
      throw new HttpError(
        413,
        'TOO_LARGE',
        `This request costs ${cost} rate tokens (one per batch element, import line or started ${COST_BYTES / 1024} KiB), more than the ${limiter.burst} a key can spend at once: split it into smaller requests (or start the server with a larger --rate-burst).`,
      );
    }
    const d = await limiter.takeShared(callerOf(state), cost - paid);
    if (!d.ok) {
      throw new HttpError(429, 'RATE_LIMITED', `Too many requests for this key; retry in ${d.retryAfterSeconds} s.`, {
        'retry-after': String(d.retryAfterSeconds),
      });
    }
  }

  /** The cost of a request: one token per batch element or import line, per started COST_BYTES, at least one. */
  function workCost(bytes: number, elements = 1): number {
    return Math.max(1, elements, Math.ceil(bytes / COST_BYTES));
  }

  // ---------- routes ----------

  async function runOperation(
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    op: Operation,
    params: Record<string, string>,
    query: Record<string, string>,
  ): Promise<void> {
    const http = op.http!;
    const principal = await authenticate(req, state);
    await rateLimit(state);
    let body: unknown;
    if (http.method === 'POST' || http.method === 'PATCH' || http.method === 'PUT') {
      if (http.bodyType === 'ndjson') {
        requireContentType(req, 'ndjson');
        const raw = await readBody(req);
        body = utf8Text(raw);
        const lines = (body as string).split('\n').filter((l) => l.trim() !== '').length;
        await rateLimit(state, workCost(raw.length, lines), 1);
      } else {
        requireContentType(req, 'json');
        body = await readJsonObject(req, state);
        if (http.body) body = parseInput(http.body, op.name, body ?? {});
      }
    } else if (http.method === 'DELETE' && http.body) {
      // A DELETE may carry its input as a JSON body (or as query parameters; the binding merges them).
      requireContentType(req, 'json');
      body = await readJsonObject(req, state);
      if (body !== undefined) body = parseInput(http.body, op.name, body);
    } else {
      req.resume();
    }
    // Query parameters are checked against the route's schema (unknown or malformed ones are refused).
    if (http.query) query = parseInput(http.query, op.name, query) as Record<string, string>;
    const input = http.input ? http.input({ params, query, body }) : { ...(body as object | undefined), ...params };
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const result = await inSpace(principal.space, () =>
      op.run(
        { principal, stack: options.stack, services, params, transport: 'http', signal: abort.signal },
        input ?? {},
      ),
    );
    if (http.responseType === 'ndjson') {
      await streamLines(res, result as AsyncIterable<unknown>, abort.signal);
      return;
    }
    sendJson(res, http.status ? http.status(result) : 200, result);
  }

  async function streamLines(res: ServerResponse, rows: AsyncIterable<unknown>, signal: AbortSignal): Promise<void> {
    res.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      ...(shuttingDown ? { connection: 'close' } : {}),
    });
    for await (const row of rows) {
      if (signal.aborted || res.destroyed) return;
      if (!res.write(`${JSON.stringify(row)}\n`)) {
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
    }
    res.end();
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const principal = await authenticate(req, state);
    await rateLimit(state);
    requireContentType(req, 'json');
    const raw = await readBody(req);
    const text = utf8Text(raw);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new HttpError(400, 'INVALID_INPUT', `The request body is not valid JSON: ${(e as Error).message}.`);
    }
    type Message = { method?: unknown; params?: { name?: unknown } } | undefined | null;
    const messages: Message[] = Array.isArray(body) ? (body as Message[]) : [body as Message];
    if (messages.length > maxBatch) {
      throw new HttpError(
        413,
        'TOO_LARGE',
        `This MCP request carries ${messages.length} JSON-RPC messages; at most ${maxBatch} go in one POST. Split the batch.`,
      );
    }
    const calls = messages.filter((m) => m?.method === 'tools/call');
    // Each tools/call is one operation: the request pays for each, not once for the batch.
    await rateLimit(state, workCost(raw.length, calls.length), 1);
    const message = messages.length === 1 ? messages[0] : undefined;
    if (message?.method === 'tools/call' && typeof message.params?.name === 'string') state.tool = message.params.name;
    const server = createMcpServer({
      operations,
      stack: options.stack,
      services,
      principal,
      logger,
      version: SERVER_VERSION,
      extend: options.mcpExtend,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await inSpace(principal.space, () => transport.handleRequest(req, res, body));
  }

  async function ready(): Promise<void> {
    if (shuttingDown) throw new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down.');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        options.stack.knowledgeStore.getEmbeddingInfo(),
        new Promise((_, fail) => {
          timer = setTimeout(
            () => fail(new MemError('STORE_UNAVAILABLE', 'The store did not answer within 2 s.')),
            2000,
          );
        }),
      ]);
    } catch (error) {
      if (MemError.is(error) || error instanceof HttpError) throw error;
      throw new MemError('STORE_UNAVAILABLE', 'The store is not answering.', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const incoming = req.headers['x-request-id'];
    const state: RequestState = {
      requestId: typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID(),
      started: performance.now(),
      principal: null,
      keyId: null,
      operation: null,
      tool: null,
      route: null,
    };
    res.setHeader('x-request-id', state.requestId);
    res.setHeader('x-content-type-options', 'nosniff');
    const method = req.method ?? 'GET';
    let pathname = '/';
    let query: Record<string, string> = {};
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      pathname = url.pathname;
      query = Object.fromEntries(url.searchParams);
    } catch {
      // Leave pathname '/' for the log; the request is refused below.
      pathname = '(unparseable)';
    }
    inflight.add(res);
    res.once('close', () => {
      inflight.delete(res);
      const p = state.principal;
      logger.log('info', 'request', {
        requestId: state.requestId,
        method,
        path: loggedPath(
          pathname,
          state.route,
          (p) => p === '/' || p === '/healthz' || p === '/readyz' || p === '/openapi.json' || assets.has(p),
        ),
        status: res.statusCode,
        ms: Math.round((performance.now() - state.started) * 10) / 10,
        principal: p ? `${p.space}/${p.agentId}` : null,
        role: p?.role ?? null,
        keyId: state.keyId,
        ...(state.operation ? { operation: state.operation } : {}),
        ...(state.tool ? { tool: loggedTool(state.tool, toolNames) } : {}),
        ...(res.statusCode === 401 || res.statusCode === 429 ? { client: req.socket.remoteAddress ?? null } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      if (inflight.size === 0) drained?.();
    });
    try {
      guard.checkSource(req);
      if (pathname === '(unparseable)') throw new HttpError(400, 'INVALID_INPUT', 'The request URL cannot be parsed.');
      if (shuttingDown && pathname !== '/healthz') {
        throw new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down; retry in a moment.', {
          connection: 'close',
        });
      }
      if (method === 'GET' || method === 'HEAD') {
        if (pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
        if (pathname === '/readyz') {
          await ready();
          return sendJson(res, 200, { status: 'ready' });
        }
        if (pathname === '/openapi.json') {
          res.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(openapi)) });
          res.end(openapi);
          return;
        }
        const asset = assets.get(pathname);
        if (asset) {
          res.writeHead(200, { ...asset.headers, 'content-length': String(asset.body.length) });
          res.end(method === 'HEAD' ? undefined : asset.body);
          return;
        }
      }
      if (pathname === '/mcp') {
        state.operation = 'mcp';
        state.route = '/mcp';
        if (method !== 'POST')
          throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: POST JSON-RPC requests.', {
            allow: 'POST',
          });
        return await handleMcp(req, res, state);
      }
      const match = router.match(method, pathname);
      if (match.kind === 'none') {
        req.resume();
        throw new HttpError(
          404,
          'ROUTE_NOT_FOUND',
          `No route ${method} ${pathname}. GET /openapi.json lists every route.`,
        );
      }
      if (match.kind === 'method') {
        req.resume();
        throw new HttpError(
          405,
          'METHOD_NOT_ALLOWED',
          `${pathname} accepts ${match.allowed.join(', ')}, not ${method}.`,
          {
            allow: match.allowed.join(', '),
          },
        );
      }
      state.operation = match.op.name;
      state.route = match.op.http?.path ?? null;
      await runOperation(req, res, state, match.op, match.params, query);
    } catch (error) {
      discardBody(req, res);
      sendError(res, state, error);
    }
  }

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersMs;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestMs;
  if (!(headersTimeout > 0 && requestTimeout >= headersTimeout)) {
    unshare();
    throw new MemError(
      'INVALID_INPUT',
      `The headers timeout (${headersTimeout} ms) must be above 0 and at most the request timeout (${requestTimeout} ms).`,
    );
  }
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_TIMEOUTS.keepAliveMs,
      // How often Node looks for connections past those timeouts (its default, 30 s, would let them live longer).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      void handle(req, res);
    },
  );
  capConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, logger);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Slow or idle clients (the headers timeout), resets and malformed requests: the client's doing, not an
    // error of the server — one debug line, no stack.
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    logger.log('debug', timedOut ? 'client too slow: connection closed' : 'client error', {
      client: (socket as { remoteAddress?: string }).remoteAddress ?? null,
      reason: error.code ?? 'unknown',
    });
    if (socket.writable && error.code !== 'ECONNRESET')
      socket.end(
        timedOut
          ? 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n'
          : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n',
      );
    else socket.destroy();
  });

  await new Promise<void>((ok, fail) => {
    const onError = (error: Error) => {
      unshare();
      fail(error);
    };
    server.once('error', onError);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', onError);
      ok();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      shuttingDown = true;
      const stopped = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      if (inflight.size > 0) {
        const timeout = options.shutdownTimeoutMs ?? 10_000;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((ok) => (drained = ok)),
          new Promise<void>((ok) => (timer = setTimeout(ok, timeout))),
        ]);
        clearTimeout(timer);
        if (inflight.size > 0) logger.log('warn', 'shutdown timeout: cutting connections', { inflight: inflight.size });
      }
      server.closeAllConnections();
      await stopped;
      unshare();
      if (options.closeStack) await options.stack.close();
      logger.log('info', 'server stopped', { url });
    })();
    return closing;
  };

  const p = options.defaultPrincipal;
  return {
    url,
    host,
    port: address.port,
    // As of the last request (each request re-checks for a key while the server is open).
    get auth() {
      return openNow ? 'open' : 'keys';
    },
    mcpUrl: `${url}/mcp`,
    inspectorUrl: `${url}/`,
    http: server,
    describe: () =>
      !openNow
        ? `mem server listening on ${url} (API keys required${keys !== null && activeAtStart === 0 ? '; none exists yet: create one with mem keys create, or start with --open for loopback use without keys' : ''}; MCP at ${url}/mcp, inspector at ${url}/)`
        : `mem server listening on ${url} without API keys (--open): loopback only, every request acts as agent "${p.agentId}" (${p.role}) in space "${p.space}" (MCP at ${url}/mcp, inspector at ${url}/). Creating a key with mem keys create ends open mode at once.`,
    close,
  };
}

/**
 * Resolve on the first SIGTERM or SIGINT. Later signals are ignored while the shutdown runs (a wrapper process
 * and the terminal may both deliver one Ctrl-C); the shutdown itself is bounded by `shutdownTimeoutMs`.
 */
export function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((ok) => {
    let first: NodeJS.Signals | null = null;
    const on = (signal: NodeJS.Signals) => {
      if (first) return;
      first = signal;
      ok(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}
