/**
 * The HTTP server (node:http): the `/v1` API routed from the operation table (http-operation.ts), `POST /mcp`
 * (http-mcp.ts), the OpenAPI document, health and readiness, and the web inspector. Auth (request-auth.ts), rate
 * limits (request-cost.ts), body limits (request.ts), request ids, one structured log line per request, and a
 * graceful shutdown that finishes in-flight requests. Options and defaults: server-options.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MemError } from '@mem/core';
import { defaultOperations, observeOperations } from '@mem/operations';
import { capConnections } from './connection-cap.js';
import type { DoorContext } from './door-context.js';
import { HttpError } from './errors.js';
import { shareEmbedderFairly } from './fair-queue.js';
import { createRequestGuard } from './guard.js';
import { handleMcp } from './http-mcp.js';
import { runOperation } from './http-operation.js';
import { inspectorAssets } from './inspector.js';
import { jsonLogger, loggedPath, loggedTool } from './log.js';
import { checkMetricsKey, METRICS_CONTENT_TYPE, requireMetricsKey, ServerMetrics } from './metrics.js';
import { buildOpenApi } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import { discardBody, JSON_HEADERS, newRequestState } from './request.js';
import { createAuthenticator } from './request-auth.js';
import { createResponder } from './respond.js';
import { Router } from './router.js';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_BATCH,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_RATE,
  DEFAULT_TIMEOUTS,
  isLoopback,
  type RunningServer,
  SERVER_VERSION,
  type ServerOptions,
} from './server-options.js';

export type { RunningServer, ServerOptions } from './server-options.js';

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
  checkMetricsKey(options.metricsKey);
  const guard = createRequestGuard({
    listenHost: host,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  const auth = createAuthenticator(options, keys, logger);
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const unshare =
    options.fairEmbedding === false || !options.stack.embedder
      ? () => {}
      : shareEmbedderFairly(options.stack.embedder, options.fairEmbedding ?? {});
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const metrics = new ServerMetrics();
  const operations = observeOperations(options.operations ?? defaultOperations(options.stack), metrics.observer);
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
  const respond = createResponder(logger, () => shuttingDown);
  const doors: DoorContext = {
    stack: options.stack,
    operations,
    logger,
    limiter,
    bodyLimit,
    maxBatch,
    mcpExtend: options.mcpExtend,
    respond,
    authenticate: auth.authenticate,
  };

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
    const state = newRequestState(req);
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
          (p) =>
            p === '/' ||
            p === '/healthz' ||
            p === '/readyz' ||
            p === '/metrics' ||
            p === '/openapi.json' ||
            assets.has(p),
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
        if (pathname === '/healthz') return respond.sendJson(res, 200, { status: 'ok' });
        if (pathname === '/readyz') {
          await ready();
          return respond.sendJson(res, 200, { status: 'ready' });
        }
        if (pathname === '/metrics') {
          state.route = pathname;
          requireMetricsKey(req, options.metricsKey);
          const text = await metrics.render(options.stack);
          res.writeHead(200, {
            'content-type': METRICS_CONTENT_TYPE,
            'cache-control': 'no-store',
            'content-length': String(Buffer.byteLength(text)),
          });
          res.end(method === 'HEAD' ? undefined : text);
          return;
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
      if (pathname === '/mcp' || pathname === '/mcp/memory-server') {
        state.operation = 'mcp';
        state.route = pathname;
        if (method !== 'POST')
          throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: POST JSON-RPC requests.', {
            allow: 'POST',
          });
        return await handleMcp(doors, req, res, state, pathname === '/mcp' ? null : 'memory-server');
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
      await runOperation(doors, req, res, state, match.op, match.params, query);
    } catch (error) {
      discardBody(req, res, bodyLimit);
      respond.sendError(res, state, error);
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
      return auth.open ? 'open' : 'keys';
    },
    mcpUrl: `${url}/mcp`,
    inspectorUrl: `${url}/`,
    http: server,
    describe: () =>
      !auth.open
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
