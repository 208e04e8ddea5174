/** What a server is started with and what it answers with: the defaults, the options, the running server. */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Principal, Stack } from '@mem/core';
import type { Operation } from '@mem/operations';
import type { FairEmbeddingOptions } from './fair-queue.js';
import type { KeyStore } from './keys.js';
import type { ServerLogger } from './log.js';
import type { McpOptions } from './mcp.js';
import type { RateBuckets } from './rate-limit.js';

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
  /**
   * The bearer key of `GET /metrics` (`MEM_METRICS_KEY`, 24+ characters): the metrics cover every space, so they
   * have a key of their own. Without one, `/metrics` answers 403.
   */
  metricsKey?: string | undefined;
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
