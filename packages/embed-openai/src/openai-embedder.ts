import { MemError } from '@mem/core';
import { type Embedder, type EmbeddingResult, openAIUsage, sumUsage, type TokenUsage } from '@mem/core/adapter';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_BATCH_SIZE = 128;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const PROBE_TEXT = 'mem dimension probe';

export interface OpenAIEmbedderOptions {
  /** Any OpenAI-compatible API root, e.g. `http://localhost:11434/v1`. Default `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Sent as `Authorization: Bearer …`. Omit for servers without auth: then no Authorization header is sent. */
  apiKey?: string;
  /** Embedding model name, e.g. `text-embedding-3-small`. */
  model: string;
  /** Asks the API for vectors of this length (models that support shortening). Sent only when set. */
  dimensions?: number;
  /**
   * Expected vector length. Defaults to `dimensions` when that is set; otherwise it is learned from the first
   * response (see `init()`). Every vector of another length is rejected.
   */
  dimension?: number;
  /** Texts per request (default 128). */
  batchSize?: number;
  /** Per-request timeout in milliseconds (default 60 000). */
  timeoutMs?: number;
  /** Retries the SDK makes on connection errors, 408, 409, 429 and 5xx (default 2). */
  maxRetries?: number;
  /** Model id recorded with every vector. Default `openai:<model>`, plus `:<dimensions>` when set. */
  id?: string;
}

/** The `Embedder` port (with `embedWithUsage`) plus `init()`, for when the vector length is not configured. */
export interface OpenAIEmbedder extends Embedder {
  /** The vectors and the tokens the API says it spent (`usage.prompt_tokens` / `total_tokens`, summed over batches). */
  embedWithUsage(texts: string[]): Promise<EmbeddingResult>;
  /**
   * Resolves the vector length. When `dimension` (or `dimensions`) was given, or a call to `embed` has
   * already learned it, this returns at once without a request; otherwise it embeds one short probe text.
   * Reading `dimension` before it is known throws a MemError that points here.
   */
  init(): Promise<number>;
}

/**
 * An Embedder over any OpenAI-compatible `POST /embeddings` endpoint, through the official `openai` SDK.
 * Takes only explicit options: no environment variable is read (not even `OPENAI_API_KEY`).
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): OpenAIEmbedder {
  const settings = checkOptions(options);
  const { model, dimensions, batchSize, apiKey } = settings;
  const where = displayURL(settings.baseURL);

  const client = new OpenAI({
    baseURL: settings.baseURL,
    // The SDK insists on a key; without one we send none at all (the header is removed below).
    apiKey: apiKey ?? 'unused',
    organization: null,
    project: null,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
  });

  let known: number | undefined = settings.dimension;
  let probing: Promise<number> | undefined;
  const id = settings.id ?? `openai:${model}${dimensions === undefined ? '' : `:${dimensions}`}`;

  const fail = (message: string, retryable: boolean, extra: MemErrorExtra = {}): MemError =>
    new MemError('EMBEDDER_FAILED', redact(`embed-openai: ${message}`, apiKey), {
      retryable,
      details: { baseURL: where, model, ...extra.details },
      ...(extra.cause === undefined ? {} : { cause: extra.cause }),
    });

  async function request(batch: string[]): Promise<{ vectors: Float32Array[]; usage: TokenUsage }> {
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await client.embeddings.create({
        model,
        input: batch,
        encoding_format: 'float',
        ...(dimensions === undefined ? {} : { dimensions }),
      });
    } catch (error) {
      throw describeFailure(error, { where, model, dimensions, timeoutMs: settings.timeoutMs, apiKey, fail });
    }

    const data: unknown = (response as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data) || data.length !== batch.length) {
      const got = Array.isArray(data) ? `${data.length} vectors` : 'no `data` array';
      throw fail(`${where}/embeddings returned ${got} for ${batch.length} texts (model "${model}")`, false);
    }
    const out = new Array<Float32Array | undefined>(batch.length);
    data.forEach((item: unknown, position) => {
      const entry = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const index = entry.index === undefined ? position : entry.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= batch.length || out[index]) {
        throw fail(
          `${where}/embeddings returned a bad or repeated index ${JSON.stringify(index)} (model "${model}")`,
          false,
        );
      }
      const vector = toVector(entry.embedding);
      if (!vector || vector.length === 0) {
        throw fail(
          `${where}/embeddings returned an embedding that is empty or neither a number array nor base64 (model "${model}")`,
          false,
        );
      }
      if (known === undefined) known = vector.length; // learned from the first response
      if (vector.length !== known) {
        const source = settings.dimension === undefined ? 'learned from the first response' : 'configured';
        throw fail(
          `model "${model}" returned a vector of ${vector.length} dimensions, expected ${known} (${source}). ` +
            'Check the model, `dimensions` and `dimension` options; vectors of different lengths never mix in one store.',
          false,
          { details: { expected: known, actual: vector.length } },
        );
      }
      out[index] = vector;
    });
    // A server that sends no `usage` (some local ones) reports zero.
    return { vectors: out as Float32Array[], usage: openAIUsage((response as { usage?: unknown }).usage) };
  }

  async function embedAll(texts: string[]): Promise<EmbeddingResult> {
    checkTexts(texts);
    const vectors: Float32Array[] = [];
    const spent: TokenUsage[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const r = await request(texts.slice(start, start + batchSize));
      vectors.push(...r.vectors);
      spent.push(r.usage);
    }
    return { vectors, usage: sumUsage(spent) };
  }

  const embedder: OpenAIEmbedder = {
    id,
    get dimension(): number {
      if (known === undefined) {
        throw new MemError(
          'EMBEDDER_FAILED',
          `embed-openai: the vector length of model "${model}" is not known yet. Pass the \`dimension\` option, ` +
            'or `await embedder.init()` (one probe request) or embed once before reading `dimension`.',
        );
      }
      return known;
    },
    async init(): Promise<number> {
      if (known !== undefined) return known;
      if (!probing) {
        probing = request([PROBE_TEXT]).then(
          () => known as number,
          (error: unknown) => {
            probing = undefined; // a later init() may try again
            throw error;
          },
        );
      }
      return probing;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      return (await embedAll(texts)).vectors;
    },
    embedWithUsage: embedAll,
  };
  return embedder;
}

interface MemErrorExtra {
  cause?: unknown;
  details?: Record<string, unknown>;
}

interface FailureContext {
  where: string;
  model: string;
  dimensions: number | undefined;
  timeoutMs: number;
  apiKey: string | undefined;
  fail: (message: string, retryable: boolean, extra?: MemErrorExtra) => MemError;
}

/** Maps what the SDK throws to a MemError whose message says what to do. Never includes the key. */
function describeFailure(error: unknown, ctx: FailureContext): MemError {
  const { where, model, fail } = ctx;
  if (MemError.is(error)) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return fail(`the request to ${where} timed out after ${ctx.timeoutMs} ms; try again or raise timeoutMs`, true, {
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    return fail(
      `could not reach ${where} (${networkReason(error)}); check the baseURL and that the server is up`,
      true,
      {
        cause: error,
      },
    );
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const details = { status, ...(error.requestID ? { requestId: error.requestID } : {}) };
    const said = serverMessage(error);
    if (status === 401) {
      // No cause: a 401 body may echo (part of) the key.
      const hint =
        ctx.apiKey === undefined ? 'no API key was given; pass the apiKey option' : 'check the apiKey option';
      return fail(`${where} rejected the API key (HTTP 401); ${hint}`, false, { details });
    }
    if (status === 403) {
      return fail(`${where} refused access (HTTP 403)${said}; check that the API key may use model "${model}"`, false, {
        details,
      });
    }
    if (status === 404) {
      return fail(
        `${where}/embeddings or model "${model}" was not found (HTTP 404)${said}; check baseURL and model`,
        false,
        {
          cause: error,
          details,
        },
      );
    }
    if (status === 429) {
      return fail(`${where} is rate limiting requests (HTTP 429)${said}; retry later`, true, { cause: error, details });
    }
    if (status >= 500 || status === 408 || status === 409) {
      return fail(`${where} failed with HTTP ${status}${said}; retry later`, true, { cause: error, details });
    }
    const hint = ctx.dimensions === undefined ? '' : ` (does model "${model}" support dimensions=${ctx.dimensions}?)`;
    return fail(`${where} rejected the request with HTTP ${status}${said}${hint}`, false, { cause: error, details });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return fail(`embedding with model "${model}" at ${where} failed: ${reason}`, false, { cause: error });
}

/** `: <server message>` when the server said something, cut to a sane length. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : '';
  if (!text) return '';
  return `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

/** The lowest-level reason of a connection failure, e.g. `ECONNREFUSED`. */
function networkReason(error: unknown): string {
  let current: unknown = error;
  let reason = 'connection failed';
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (current.message) reason = current.message;
    current = current.cause;
  }
  return reason;
}

function toVector(embedding: unknown): Float32Array | undefined {
  if (Array.isArray(embedding)) {
    return embedding.every((x) => typeof x === 'number') ? Float32Array.from(embedding as number[]) : undefined;
  }
  if (typeof embedding === 'string') {
    // Some servers ignore encoding_format and always answer base64 (little-endian float32).
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length % 4 !== 0) return undefined;
    const vector = new Float32Array(bytes.length / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
    return vector;
  }
  return undefined;
}

interface Settings {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  dimensions: number | undefined;
  dimension: number | undefined;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  id: string | undefined;
}

function checkOptions(options: OpenAIEmbedderOptions): Settings {
  const bad = (message: string) => new MemError('INVALID_INPUT', `embed-openai: ${message}`);
  if (!options || typeof options.model !== 'string' || options.model.trim() === '') {
    throw bad('the model option is required, e.g. { model: "text-embedding-3-small" }');
  }
  const positive = (name: string, value: number | undefined, allowZero = false): void => {
    if (value === undefined) return;
    if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
      throw bad(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${String(value)}`);
    }
  };
  positive('dimensions', options.dimensions);
  positive('dimension', options.dimension);
  positive('batchSize', options.batchSize);
  positive('timeoutMs', options.timeoutMs);
  positive('maxRetries', options.maxRetries, true);
  if (options.dimensions !== undefined && options.dimension !== undefined && options.dimensions !== options.dimension) {
    throw bad(
      `dimensions (${options.dimensions}) asks for vectors of another length than dimension (${options.dimension})`,
    );
  }
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === '')) {
    throw bad('apiKey must be a non-empty string when given');
  }
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id.trim() === '')) {
    throw bad('id must be a non-empty string when given');
  }
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseURL);
  } catch {
    throw bad(`baseURL is not a URL: ${JSON.stringify(displayURL(baseURL))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw bad(`baseURL must be http(s), got ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) {
    // fetch refuses such URLs, and error messages would repeat them.
    throw bad('baseURL must not contain user:password; pass the key as apiKey');
  }
  if (parsed.search || parsed.hash) {
    // The SDK appends `/embeddings` to the base URL as a string, which would land inside the query.
    throw bad('baseURL must not have a query string or fragment (the SDK appends /embeddings to it)');
  }
  return {
    baseURL,
    apiKey: options.apiKey,
    model: options.model,
    dimensions: options.dimensions,
    dimension: options.dimension ?? options.dimensions,
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    id: options.id,
  };
}

function checkTexts(texts: unknown): asserts texts is string[] {
  if (!Array.isArray(texts)) {
    throw new MemError('INVALID_INPUT', 'embed-openai: embed() takes an array of strings');
  }
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') {
      throw new MemError('INVALID_INPUT', `embed-openai: texts[${i}] is ${typeof texts[i]}, expected a string`);
    }
  }
}

/** The base URL as shown in messages: no user:password, no query string (either may carry a secret). */
function displayURL(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return raw.replace(/\/\/[^/@]*@/, '//').replace(/\?.*$/, '');
  }
}

/** Belt and braces: whatever a server or a driver echoed, neither the key nor URL credentials reach a message. */
function redact(message: string, apiKey: string | undefined): string {
  const withoutKey = apiKey && apiKey.length >= 4 ? message.split(apiKey).join('[redacted]') : message;
  return withoutKey.replace(/(\w+:\/\/)[^/\s@]*@/g, '$1');
}
