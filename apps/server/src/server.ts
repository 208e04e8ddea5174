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
import { classify, HttpError } from './errors.js';
import { inspectorAssets } from './inspector.js';
import type { KeyStore } from './keys.js';
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
  /** Default 127.0.0.1. Any other address needs API keys. */
  host?: string;
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
  /** `keys`: every API request needs a bearer key; `open`: loopback only, as the default principal. */
  auth: 'keys' | 'open';
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
  const auth: 'keys' | 'open' =
    options.requireAuth || (keys !== null && (await keys.activeCount()) > 0) ? 'keys' : 'open';
  if (auth === 'open' && !isLoopback(host)) {
    throw new MemError(
      'FORBIDDEN',
      `Refusing to listen on ${host} without API keys: anyone who can reach it would act as "${options.defaultPrincipal.agentId}" in space "${options.defaultPrincipal.space}". Create a key first (mem keys create --space S --agent A --role worker), or listen on 127.0.0.1.`,
    );
  }
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

  async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
    const text = utf8Text(await readBody(req));
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
      if (auth === 'open') {
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
    const verified = keys ? await keys.verify(token) : null;
    if (!verified) {
      throw new HttpError(401, 'UNAUTHORIZED', 'The API key is unknown, malformed or revoked.', {
        'www-authenticate': 'Bearer realm="mem", error="invalid_token"',
      });
    }
    state.principal = verified.principal;
    state.keyId = verified.keyId;
    return verified.principal;
  }

  async function rateLimit(state: RequestState): Promise<void> {
    const caller = state.keyId ? `key:${state.keyId}` : `open:${state.principal?.space}/${state.principal?.agentId}`;
    const d = await limiter.takeShared(caller);
    if (!d.ok) {
      throw new HttpError(429, 'RATE_LIMITED', `Too many requests for this key; retry in ${d.retryAfterSeconds} s.`, {
        'retry-after': String(d.retryAfterSeconds),
      });
    }
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
      if (http.bodyType === 'ndjson') body = utf8Text(await readBody(req));
      else {
        body = await readJsonObject(req);
        if (http.body) body = parseInput(http.body, op.name, body ?? {});
      }
    } else if (http.method === 'DELETE' && http.body) {
      // A DELETE may carry its input as a JSON body (or as query parameters; the binding merges them).
      body = await readJsonObject(req);
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
    const result = await op.run(
      { principal, stack: options.stack, services, params, transport: 'http', signal: abort.signal },
      input ?? {},
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
    const text = utf8Text(await readBody(req));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new HttpError(400, 'INVALID_INPUT', `The request body is not valid JSON: ${(e as Error).message}.`);
    }
    const message = body as { method?: unknown; params?: { name?: unknown } } | undefined | null;
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
    await transport.handleRequest(req, res, body);
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
        ...(res.writableFinished ? {} : { aborted: true }),
      });
      if (inflight.size === 0) drained?.();
    });
    try {
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

  const server = createServer({ keepAliveTimeout: 5000, requestTimeout: 120_000 }, (req, res) => {
    void handle(req, res);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', fail);
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
    auth,
    mcpUrl: `${url}/mcp`,
    inspectorUrl: `${url}/`,
    http: server,
    describe: () =>
      auth === 'keys'
        ? `mem server listening on ${url} (API keys required; MCP at ${url}/mcp, inspector at ${url}/)`
        : `mem server listening on ${url} without API keys: loopback only, every request acts as agent "${p.agentId}" (${p.role}) in space "${p.space}" (MCP at ${url}/mcp, inspector at ${url}/). Create a key with mem keys create to require keys.`,
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
