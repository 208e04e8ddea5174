/**
 * The one OpenAI-compatible chat client of this package, shared by the summariser, the extractors and the rewriter:
 * option checks, client construction (no Authorization header without a key, no organisation/project headers), one
 * chat completion per call (optionally asking for structured output), token usage, a refusal when the model gave one,
 * and the mapping of SDK errors to a reason in words plus whether a retry may help.
 * Nothing here ever puts the API key into a message.
 */
import { openAIUsage, type TokenUsage } from '@mem/core/adapter';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** What the summariser and the extractor share: where the endpoint is and how a request is made. */
export interface ChatEndpointOptions {
  /** Any OpenAI-compatible API root, e.g. `http://localhost:11434/v1`. Default `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Sent as `Authorization: Bearer …`. Omit for servers without auth (then no Authorization header is sent). */
  apiKey?: string;
  /** Chat model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** Sampling temperature, 0–2. */
  temperature?: number;
  /** Most tokens the answer may take. */
  maxTokens?: number;
  /** How the limit is sent: `max_tokens` (default; most compatible servers) or `max_completion_tokens` (newer OpenAI models). */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Per-request timeout in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Retries the SDK makes on connection errors, 408, 409, 429 and 5xx (default 2). */
  maxRetries?: number;
}

export interface ChatMessage {
  /** `assistant` only to show the model an earlier answer of its own (a correction asks again). */
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * How the answer is asked to be shaped: `json_schema` (structured output: the schema, strict), `json_object` (any
 * JSON object), or `none` (the prompt alone says so; for servers that refuse `response_format`).
 */
export type ResponseFormat =
  | { type: 'json_schema'; name: string; schema: Record<string, unknown> }
  | { type: 'json_object' }
  | { type: 'none' };

/** One answer of the model. */
export interface ChatAnswer {
  /** The text of the first choice, trimmed ('' when there was none). */
  content: string;
  /** `stop`, `length` (cut by maxTokens)… or null when the server said nothing. */
  finishReason: string | null;
  usage: TokenUsage;
  /** What the model said instead of answering when it refused (the SDK's `message.refusal`), else null. */
  refusal: string | null;
}

/** Why a request failed, never naming the key. */
export interface ChatFailure {
  /** In words, e.g. `the server answered 500: …` or `the request timed out after 200 ms`. */
  reason: string;
  /** True for failures a later attempt may not meet: no connection, a timeout, 408, 409, 429, 5xx. */
  retryable: boolean;
  /** The HTTP status when the server answered with an error. */
  status?: number;
  kind: 'timeout' | 'unreachable' | 'http' | 'other';
}

export interface ChatClient {
  readonly model: string;
  readonly timeoutMs: number;
  /** One chat completion (`request.maxTokens` lowers the client's own limit for this call). Throws whatever the SDK throws: map it with `describeFailure`. */
  complete(
    messages: readonly ChatMessage[],
    request?: { responseFormat?: ResponseFormat; maxTokens?: number },
  ): Promise<ChatAnswer>;
  /** Maps an error thrown by `complete` to a reason in words (with the key removed) and whether a retry may help. */
  describeFailure(error: unknown): ChatFailure;
  /** Removes the API key from a text (for reasons built elsewhere). */
  redactKey(text: string): string;
}

/**
 * Checks the endpoint options; `pkg` prefixes messages (e.g. `summarizer-llm`). Throws a TypeError that says how to
 * fix the option.
 */
export function checkChatOptions(options: ChatEndpointOptions, pkg: string): void {
  const bad = (what: string) => new TypeError(`${pkg}: ${what}`);
  if (!options || typeof options.model !== 'string' || options.model.trim() === '')
    throw bad('give the chat model name as `model`, e.g. { model: "gpt-4o-mini" }.');
  if (options.temperature !== undefined && !(options.temperature >= 0 && options.temperature <= 2))
    throw bad('`temperature` must be between 0 and 2.');
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0))
    throw bad('`maxTokens` must be a positive whole number.');
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0))
    throw bad('`timeoutMs` must be a positive number of milliseconds.');
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0))
    throw bad('`maxRetries` must be a whole number, 0 or more.');
  if (
    options.maxTokensParam !== undefined &&
    options.maxTokensParam !== 'max_tokens' &&
    options.maxTokensParam !== 'max_completion_tokens'
  )
    throw bad('`maxTokensParam` must be "max_tokens" or "max_completion_tokens".');
  if (options.baseURL !== undefined) {
    try {
      new URL(options.baseURL);
    } catch {
      throw bad(`\`baseURL\` "${options.baseURL}" is not a URL; give the API root, e.g. "http://localhost:11434/v1".`);
    }
  }
}

/** Replaces every occurrence of the key (when it is long enough to be one) by `[REDACTED]`. */
export function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[REDACTED]') : text;
}

/**
 * Builds the client. `defaults` fills what the caller left out (the summariser and the extractor have different
 * temperatures and token limits). The options must have passed `checkChatOptions`.
 */
export function createChatClient(
  options: ChatEndpointOptions,
  defaults: { temperature: number; maxTokens: number },
): ChatClient {
  const model = options.model;
  const temperature = options.temperature ?? defaults.temperature;
  const maxTokens = options.maxTokens ?? defaults.maxTokens;
  const maxTokensParam = options.maxTokensParam ?? 'max_tokens';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const apiKey = options.apiKey;
  const sdk = new OpenAI({
    baseURL: options.baseURL ?? DEFAULT_BASE_URL,
    apiKey: apiKey ?? 'unused',
    organization: null,
    project: null,
    timeout: timeoutMs,
    maxRetries: options.maxRetries ?? 2,
    ...(apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
  });

  function describeFailure(error: unknown): ChatFailure {
    let failure: ChatFailure;
    if (error instanceof APIConnectionTimeoutError) {
      failure = { kind: 'timeout', retryable: true, reason: `the request timed out after ${timeoutMs} ms` };
    } else if (error instanceof APIConnectionError) {
      const detail = (error.cause as Error | undefined)?.message ?? error.message;
      failure = { kind: 'unreachable', retryable: true, reason: `the server could not be reached (${detail})` };
    } else if (error instanceof APIError) {
      const status = error.status;
      const retryable =
        status === undefined || status === 408 || status === 409 || status === 429 || (status ?? 0) >= 500;
      failure = {
        kind: 'http',
        retryable,
        reason: `the server answered ${status ?? 'an error'}${error.message ? `: ${error.message}` : ''}`,
        ...(status !== undefined ? { status } : {}),
      };
    } else {
      failure = { kind: 'other', retryable: false, reason: error instanceof Error ? error.message : String(error) };
    }
    return { ...failure, reason: redactKey(failure.reason, apiKey) };
  }

  return {
    model,
    timeoutMs,
    describeFailure,
    redactKey: (text) => redactKey(text, apiKey),
    async complete(
      messages: readonly ChatMessage[],
      request: { responseFormat?: ResponseFormat; maxTokens?: number } = {},
    ): Promise<ChatAnswer> {
      const limit =
        request.maxTokens !== undefined && request.maxTokens >= 1
          ? Math.min(maxTokens, Math.floor(request.maxTokens))
          : maxTokens;
      const format = request.responseFormat;
      const responseFormat =
        format?.type === 'json_schema'
          ? { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: true } }
          : format?.type === 'json_object'
            ? { type: 'json_object' }
            : undefined;
      const response = await sdk.chat.completions.create({
        model,
        temperature,
        [maxTokensParam]: limit,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        ...(responseFormat ? { response_format: responseFormat } : {}),
      } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
      const choice = response?.choices?.[0];
      const refusal = choice?.message?.refusal;
      return {
        content: typeof choice?.message?.content === 'string' ? choice.message.content.trim() : '',
        finishReason: choice?.finish_reason ?? null,
        usage: openAIUsage(response?.usage),
        refusal: typeof refusal === 'string' && refusal.trim() !== '' ? refusal.trim() : null,
      };
    },
  };
}
