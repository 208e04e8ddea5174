/**
 * The settings of a mem stack, read once from flags and `MEM_*` environment variables (a flag beats a variable, a
 * variable beats the default) and checked before anything opens. Every app — the `mem` command, the server's
 * `pnpm start`, the terminal agent — reads them here and builds its stack with `openStack` (compose.ts).
 * docs/configuration.md lists each variable.
 */
import { resolve } from 'node:path';
import { checkName, type Role } from '@mem/core';
import { UsageError } from '@mem/operations';
import { type SqliteStoreOptions, sqliteIndexOptionsFromJson } from '@mem/store-sqlite';

export type Env = Record<string, string | undefined>;

export const STORES = ['sqlite', 'postgres', 'lancedb', 'in-memory'] as const;
export const EMBEDDERS = ['local', 'hashing', 'openai', 'none'] as const;

/** An OpenAI-compatible endpoint: a model, and optionally where and with which key. */
export interface Endpoint {
  model: string;
  baseURL?: string;
  apiKey?: string;
}

export interface Settings {
  /** `--store`, MEM_STORE. */
  store: (typeof STORES)[number];
  /** `--db`, MEM_DB: the SQLite file, the PostgreSQL URL or the LanceDB folder. */
  db: string;
  /** `--workspace`, MEM_WORKSPACE_DIR: the folder of the Markdown transcripts and notebooks. */
  workspace: string;
  /** `--transcripts`, MEM_TRANSCRIPTS: Markdown files, or the store's own tables. */
  transcripts: 'markdown' | 'store';
  /** `--space`, `--agent`, `--role` (MEM_SPACE, MEM_AGENT, MEM_ROLE): who acts. */
  space: string;
  agent: string;
  role: Role;
  /** `--user`, MEM_USER: the end user the agent acts for (memories formed about them follow them); none by default. */
  user: string | undefined;
  /** `--embedder`, MEM_EMBEDDER. */
  embedder: (typeof EMBEDDERS)[number];
  /** MEM_HASHING_DIMENSION, for `--embedder hashing`. */
  hashingDimension: number;
  /** MEM_EMBED_MODEL, MEM_EMBED_BASE_URL, MEM_EMBED_API_KEY, MEM_EMBED_DIMENSIONS, for `--embedder openai`. */
  embed: (Endpoint & { dimensions?: number }) | undefined;
  /** `--secretlint`, MEM_SECRETLINT: secretlint's preset after mem's own rules. */
  secretlint: boolean;
  /** MEM_SQLITE_INDEX: the SQLite store's index options (JSON). */
  sqliteIndex: SqliteStoreOptions['index'] | undefined;
  /** MEM_SUMMARIZER=llm and MEM_QUERY_REWRITE=llm: the chat endpoint of MEM_LLM_*. */
  summarizer: Endpoint | undefined;
  /** MEM_SUMMARIZER without a model: `extractive` (the default; also the LLM summariser's fallback) or `template`. */
  offlineSummarizer: 'extractive' | 'template';
  queryRewriter: Endpoint | undefined;
  /** MEM_EXTRACTOR=llm: distill reads conversations with the chat model of MEM_LLM_* (default: the offline reader). */
  extractor: Endpoint | undefined;
  /** MEM_DISTILL_REVIEW=on: distillations keep their proposals in the review queue until approved (default off). */
  distillReview: boolean;
  /** MEM_RERANK_URL, MEM_RERANK_MODEL, MEM_RERANK_API_KEY, MEM_RERANK_FORMAT, MEM_RERANK_DEPTH. */
  rerank: { baseURL: string; model?: string; apiKey?: string; format: 'cohere' | 'tei'; depth?: number } | undefined;
}

/** The flags that name a setting, as `parseArgs` returns them (strings). */
export type SettingFlags = Partial<
  Record<
    'store' | 'db' | 'workspace' | 'transcripts' | 'space' | 'agent' | 'role' | 'user' | 'embedder' | 'secretlint',
    unknown
  >
>;

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    const accepted = allowed.length === 2 ? `"${allowed[0]}" or "${allowed[1]}"` : `one of ${allowed.join(', ')}`;
    throw new UsageError(`${what} must be ${accepted} (got "${value}").`);
  }
  return value as T;
}

function whole(text: string | undefined, what: string, min: number, max: number, fallback: number): number;
function whole(text: string | undefined, what: string, min: number, max: number): number | undefined;
function whole(text: string | undefined, what: string, min: number, max: number, fallback?: number) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!(Number.isInteger(n) && n >= min && n <= max)) {
    throw new UsageError(`${what} must be a whole number from ${min} to ${max} (got "${text}").`);
  }
  return n;
}

/** The variables that are set (an empty variable counts as unset). */
function setVariables(given: Env): Env {
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined && v !== '')) as Env;
}

/** True for a `postgres://` or `postgresql://` URL (the scheme in any case). */
export function isPostgresUrl(value: string | undefined): value is string {
  return typeof value === 'string' && /^postgres(ql)?:\/\//i.test(value);
}

/** The chat endpoint of the LLM-backed parts (MEM_LLM_MODEL, MEM_LLM_BASE_URL, MEM_LLM_API_KEY or OPENAI_API_KEY). */
function llmEndpoint(env: Env, setting: string): Endpoint {
  const model = env.MEM_LLM_MODEL;
  if (!model)
    throw new UsageError(`${setting} needs MEM_LLM_MODEL (and MEM_LLM_BASE_URL / MEM_LLM_API_KEY for your endpoint).`);
  const apiKey = env.MEM_LLM_API_KEY ?? env.OPENAI_API_KEY;
  return { model, ...(env.MEM_LLM_BASE_URL ? { baseURL: env.MEM_LLM_BASE_URL } : {}), ...(apiKey ? { apiKey } : {}) };
}

function rerankSettings(env: Env): Settings['rerank'] {
  const url = env.MEM_RERANK_URL;
  if (!url) {
    if (env.MEM_RERANK_MODEL || env.MEM_RERANK_DEPTH) {
      throw new UsageError('MEM_RERANK_MODEL / MEM_RERANK_DEPTH need MEM_RERANK_URL (e.g. http://localhost:8000/v1).');
    }
    return undefined;
  }
  const format = oneOf(env.MEM_RERANK_FORMAT ?? 'cohere', ['cohere', 'tei'] as const, 'MEM_RERANK_FORMAT');
  const depth = whole(env.MEM_RERANK_DEPTH, 'MEM_RERANK_DEPTH', 2, 100);
  return {
    baseURL: url,
    format,
    ...(env.MEM_RERANK_MODEL ? { model: env.MEM_RERANK_MODEL } : {}),
    ...(env.MEM_RERANK_API_KEY ? { apiKey: env.MEM_RERANK_API_KEY } : {}),
    ...(depth !== undefined ? { depth } : {}),
  };
}

function embedSettings(env: Env, embedder: Settings['embedder']): Settings['embed'] {
  if (embedder !== 'openai') return undefined;
  const model = env.MEM_EMBED_MODEL;
  if (!model)
    throw new UsageError(
      '--embedder openai needs MEM_EMBED_MODEL (and MEM_EMBED_BASE_URL / MEM_EMBED_API_KEY for your endpoint).',
    );
  const apiKey = env.MEM_EMBED_API_KEY ?? env.OPENAI_API_KEY;
  const dimensions = whole(env.MEM_EMBED_DIMENSIONS, 'MEM_EMBED_DIMENSIONS', 1, 65_536);
  return {
    model,
    ...(env.MEM_EMBED_BASE_URL ? { baseURL: env.MEM_EMBED_BASE_URL } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(dimensions !== undefined ? { dimensions } : {}),
  };
}

/**
 * `--user`: a name like an agent's (letters, digits, `.`, `_`, `-`), or none. A bad name is the INVALID_INPUT every
 * door answers for it (the notebook commands' own `--user` is the same flag).
 */
function userSetting(value: string): string | undefined {
  return value === '' ? undefined : checkName(value, 'user');
}

/**
 * The settings from flags, then the environment, then the defaults. A bad value is a `UsageError` (the `mem` command
 * exits 2 with it) that names the flag or variable and what it accepts.
 */
export function readSettings(given: Env, flags: SettingFlags = {}, cwd = process.cwd()): Settings {
  const env = setVariables(given);
  const pick = (flag: keyof SettingFlags, envName: string, fallback: string): string => {
    const v = flags[flag];
    return typeof v === 'string' ? v : (env[envName] ?? fallback);
  };
  const role = pick('role', 'MEM_ROLE', 'worker');
  if (role !== 'lead' && role !== 'worker') throw new UsageError(`--role must be "lead" or "worker" (got "${role}").`);
  const store = oneOf(pick('store', 'MEM_STORE', 'sqlite'), STORES, '--store');
  const embedder = oneOf(pick('embedder', 'MEM_EMBEDDER', 'local'), EMBEDDERS, '--embedder');
  // On PostgreSQL, transcripts and notebooks go to the shared database too by default: several processes or
  // replicas on one database must see one transcript per agent, which a Markdown folder per machine cannot give.
  const transcripts = pick('transcripts', 'MEM_TRANSCRIPTS', store === 'postgres' ? 'store' : 'markdown');
  if (transcripts !== 'markdown' && transcripts !== 'store') {
    throw new UsageError(`--transcripts must be "markdown" or "store" (got "${transcripts}").`);
  }
  const secretlint = pick('secretlint', 'MEM_SECRETLINT', 'on');
  if (secretlint !== 'on' && secretlint !== 'off') {
    throw new UsageError(`--secretlint must be "on" or "off" (got "${secretlint}").`);
  }
  const summarizer = oneOf(
    env.MEM_SUMMARIZER ?? 'extractive',
    ['extractive', 'template', 'llm'] as const,
    'MEM_SUMMARIZER',
  );
  const queryRewrite = oneOf(env.MEM_QUERY_REWRITE ?? 'off', ['off', 'llm'] as const, 'MEM_QUERY_REWRITE');
  const extractor = oneOf(env.MEM_EXTRACTOR ?? 'offline', ['offline', 'llm'] as const, 'MEM_EXTRACTOR');
  const distillReview = oneOf(env.MEM_DISTILL_REVIEW ?? 'off', ['off', 'on'] as const, 'MEM_DISTILL_REVIEW');
  let db = pick('db', 'MEM_DB', resolve(cwd, '.mem', 'mem.db'));
  // On PostgreSQL a `--db` that is no URL (a file path from a script's defaults) yields to a MEM_DB URL.
  if (store === 'postgres' && !isPostgresUrl(db) && isPostgresUrl(env.MEM_DB)) db = env.MEM_DB;
  return {
    store,
    db,
    workspace: pick('workspace', 'MEM_WORKSPACE_DIR', resolve(cwd, '.mem')),
    transcripts,
    space: pick('space', 'MEM_SPACE', 'default'),
    agent: pick('agent', 'MEM_AGENT', 'main'),
    role,
    user: userSetting(pick('user', 'MEM_USER', '')),
    embedder,
    hashingDimension: whole(env.MEM_HASHING_DIMENSION, 'MEM_HASHING_DIMENSION', 2, 65_536, 256),
    embed: embedSettings(env, embedder),
    secretlint: secretlint === 'on',
    // Names checked here, values when the file opens.
    sqliteIndex: env.MEM_SQLITE_INDEX
      ? sqliteIndexOptionsFromJson(env.MEM_SQLITE_INDEX, 'MEM_SQLITE_INDEX')
      : undefined,
    summarizer: summarizer === 'llm' ? llmEndpoint(env, 'MEM_SUMMARIZER=llm') : undefined,
    offlineSummarizer: summarizer === 'template' ? 'template' : 'extractive',
    queryRewriter: queryRewrite === 'llm' ? llmEndpoint(env, 'MEM_QUERY_REWRITE=llm') : undefined,
    extractor: extractor === 'llm' ? llmEndpoint(env, 'MEM_EXTRACTOR=llm') : undefined,
    distillReview: distillReview === 'on',
    rerank: rerankSettings(env),
  };
}

/** How the server listens and defends itself: `mem serve`'s flags and `pnpm start`'s variables. */
export interface ServeSettings {
  /** `--host`, MEM_HOST (default 127.0.0.1) and `--port`, MEM_PORT (default 7420; 0 picks a free one). */
  host: string;
  port: number;
  /** `--keys-db`, MEM_KEYS_DB: the API keys' SQLite file (default next to the store). */
  keysDb: string | undefined;
  /** `--body-limit`, MEM_BODY_LIMIT (bytes, default 4 MiB). */
  bodyLimitBytes: number;
  /** `--rate-limit`, MEM_RATE_LIMIT (requests per second per key, 0 = off) and `--rate-burst`, MEM_RATE_BURST. */
  ratePerSecond: number;
  burst: number;
  /** `--auth-failures`, MEM_AUTH_FAILURES: failed authentications per minute per client (0 = no limit). */
  authFailures: number;
  /** `--headers-timeout`, `--request-timeout`, `--keep-alive-timeout` (MEM_HEADERS_TIMEOUT, …; milliseconds). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** `--max-connections`, MEM_MAX_CONNECTIONS and `--embed-concurrency`, MEM_EMBED_CONCURRENCY. */
  maxConnections: number;
  embedConcurrency: number;
  /** `--allowed-hosts`, MEM_ALLOWED_HOSTS and `--allowed-origins`, MEM_ALLOWED_ORIGINS (comma-separated). */
  allowedHosts: string[] | undefined;
  allowedOrigins: string[] | undefined;
  /** `--open` (no keys on loopback) and `--require-auth` (keys even on loopback); neither: open until a key exists. */
  open: boolean | undefined;
  requireAuth: boolean;
  /** MEM_METRICS_KEY: the bearer key of `GET /metrics` (24+ characters); unset, `/metrics` answers 403. */
  metricsKey: string | undefined;
}

/** The server's settings from `mem serve`'s flags, then the environment, then the defaults. */
export function readServeSettings(given: Env, flags: Record<string, unknown> = {}): ServeSettings {
  const env = setVariables(given);
  const text = (flag: string, envName: string): string | undefined =>
    typeof flags[flag] === 'string' ? (flags[flag] as string) : env[envName];
  const count = (flag: string, envName: string, fallback: number): number => {
    const value = text(flag, envName);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number (got "${value}").`);
    return Number(value);
  };
  const list = (flag: string, envName: string) =>
    text(flag, envName)
      ?.split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  const port = count('port', 'MEM_PORT', 7420);
  if (port > 65_535) throw new UsageError(`--port must be at most 65535 (got ${port}).`);
  const ratePerSecond = count('rate-limit', 'MEM_RATE_LIMIT', 50);
  const headersTimeoutMs = count('headers-timeout', 'MEM_HEADERS_TIMEOUT', 10_000);
  const requestTimeoutMs = count('request-timeout', 'MEM_REQUEST_TIMEOUT', 60_000);
  if (headersTimeoutMs === 0 || requestTimeoutMs < headersTimeoutMs)
    throw new UsageError('--headers-timeout must be above 0 and at most --request-timeout.');
  const maxConnections = count('max-connections', 'MEM_MAX_CONNECTIONS', 256);
  if (maxConnections === 0) throw new UsageError('--max-connections must be at least 1.');
  const embedConcurrency = count('embed-concurrency', 'MEM_EMBED_CONCURRENCY', 2);
  if (embedConcurrency === 0) throw new UsageError('--embed-concurrency must be at least 1.');
  if (flags.open === true && flags['require-auth'] === true)
    throw new UsageError('choose one: --open or --require-auth.');
  return {
    host: text('host', 'MEM_HOST') ?? '127.0.0.1',
    port,
    keysDb: text('keys-db', 'MEM_KEYS_DB'),
    bodyLimitBytes: count('body-limit', 'MEM_BODY_LIMIT', 4 * 1024 * 1024),
    ratePerSecond,
    burst: count('rate-burst', 'MEM_RATE_BURST', Math.max(ratePerSecond * 4, 1)),
    authFailures: count('auth-failures', 'MEM_AUTH_FAILURES', 10),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: count('keep-alive-timeout', 'MEM_KEEP_ALIVE_TIMEOUT', 5_000),
    maxConnections,
    embedConcurrency,
    allowedHosts: list('allowed-hosts', 'MEM_ALLOWED_HOSTS'),
    allowedOrigins: list('allowed-origins', 'MEM_ALLOWED_ORIGINS'),
    open: flags.open === true ? true : undefined,
    requireAuth: flags['require-auth'] === true,
    metricsKey: env.MEM_METRICS_KEY,
  };
}
