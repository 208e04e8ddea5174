/**
 * A `Reranker` over an HTTP rerank service: the Cohere-style `/rerank` that vLLM, Infinity, Jina and Cohere serve
 * (`{ model, query, documents, top_n }` → `{ results: [{ index, relevance_score }] }`), or Hugging Face TEI's
 * (`{ query, texts }` → `[{ index, score }]`). Uses the runtime's fetch; nothing but the configured URL is called.
 */
import { MemError, type Reranker, type RerankInput, type RerankResult } from '@mem/core/adapter';

export interface HttpRerankerOptions {
  /** The service's base URL, e.g. `http://localhost:8000/v1` (vLLM) or `http://localhost:8080` (TEI). */
  baseURL: string;
  /** The reranking model, e.g. `BAAI/bge-reranker-v2-m3` (sent in the Cohere-style body; TEI serves one model). */
  model?: string | undefined;
  /** Sent as `Authorization: Bearer <apiKey>`; never shown in errors. */
  apiKey?: string | undefined;
  /** `cohere` (default: vLLM, Infinity, Jina, Cohere) or `tei`. */
  format?: 'cohere' | 'tei' | undefined;
  /** Path after `baseURL` (default `/rerank`). */
  path?: string | undefined;
  /** Give up after this long (default 10,000 ms). */
  timeoutMs?: number | undefined;
  /** Most documents per call (default 100); more is `INVALID_INPUT`. */
  maxDocuments?: number | undefined;
}

const bad = (message: string) => new MemError('INVALID_INPUT', `rerank-http: ${message}`);

function checkOptions(o: HttpRerankerOptions): Required<Omit<HttpRerankerOptions, 'model' | 'apiKey'>> & {
  model: string | undefined;
  apiKey: string | undefined;
  url: string;
} {
  if (!o || typeof o !== 'object') throw bad('give options: { baseURL, model? }.');
  let url: URL;
  try {
    url = new URL(`${String(o.baseURL).replace(/\/+$/, '')}${o.path ?? '/rerank'}`);
  } catch {
    throw bad(`baseURL must be an http(s) URL such as http://localhost:8000/v1 (got "${String(o.baseURL)}").`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw bad(`baseURL must use http or https (got "${url.protocol}").`);
  }
  const format = o.format ?? 'cohere';
  if (format !== 'cohere' && format !== 'tei') throw bad(`format must be "cohere" or "tei" (got "${String(format)}").`);
  const timeoutMs = o.timeoutMs ?? 10_000;
  if (!(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw bad(`timeoutMs must be a positive whole number (got ${timeoutMs}).`);
  const maxDocuments = o.maxDocuments ?? 100;
  if (!(Number.isInteger(maxDocuments) && maxDocuments > 0)) {
    throw bad(`maxDocuments must be a positive whole number (got ${maxDocuments}).`);
  }
  if (o.model !== undefined && (typeof o.model !== 'string' || o.model.trim() === '')) {
    throw bad('model must be a non-empty string when given.');
  }
  return {
    baseURL: o.baseURL,
    path: o.path ?? '/rerank',
    format,
    timeoutMs,
    maxDocuments,
    model: o.model,
    apiKey: o.apiKey,
    url: url.toString(),
  };
}

/** The scores in document order from either answer shape; null when the answer is not one of them. */
function scoresOf(body: unknown, count: number): number[] | null {
  const rows = Array.isArray(body) ? body : (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(rows)) return null;
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const row of rows as { index?: unknown; relevance_score?: unknown; score?: unknown }[]) {
    const index = row?.index;
    const score = row?.relevance_score ?? row?.score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) return null;
    if (typeof score !== 'number' || !Number.isFinite(score) || scores[index] !== undefined) return null;
    scores[index] = score;
  }
  return scores.every((s) => s !== undefined) ? (scores as number[]) : null;
}

function usageOf(body: unknown): RerankResult['usage'] {
  const u = (body as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } } | null)?.usage;
  const total = typeof u?.total_tokens === 'number' ? u.total_tokens : undefined;
  if (total === undefined) return undefined;
  const input = typeof u?.prompt_tokens === 'number' ? u.prompt_tokens : total;
  return { inputTokens: input, outputTokens: 0, totalTokens: total };
}

/** A reranker over an HTTP rerank endpoint (see `HttpRerankerOptions`). */
export function createHttpReranker(options: HttpRerankerOptions): Reranker {
  const o = checkOptions(options);
  const redact = (text: string) => (o.apiKey ? text.split(o.apiKey).join('[key]') : text);
  const fail = (message: string, details: Record<string, unknown> = {}) =>
    new MemError('RERANKER_FAILED', redact(`rerank-http: ${message}`), {
      retryable: true,
      details: { url: o.url, ...details },
    });
  return {
    id: `http:${o.model ?? o.url}`,
    async rerank(input: RerankInput): Promise<RerankResult> {
      if (!input || typeof input !== 'object') throw bad('rerank() takes { query, documents }.');
      const { query, documents } = input;
      if (typeof query !== 'string' || query.trim() === '') throw bad('query must be a non-empty string.');
      if (!Array.isArray(documents)) throw bad('documents must be an array of strings.');
      documents.forEach((d, i) => {
        if (typeof d !== 'string') throw bad(`documents[${i}] is ${typeof d}, expected a string.`);
      });
      if (documents.length > o.maxDocuments) {
        throw bad(
          `at most ${o.maxDocuments} documents per call (got ${documents.length}); raise maxDocuments or send fewer.`,
        );
      }
      if (documents.length === 0) return { scores: [] };
      const body =
        o.format === 'tei'
          ? { query, texts: documents, truncate: true }
          : {
              ...(o.model ? { model: o.model } : {}),
              query,
              documents,
              top_n: documents.length,
              return_documents: false,
            };
      let response: Response;
      try {
        response = await fetch(o.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(o.timeoutMs),
        });
      } catch (error) {
        const e = error as Error;
        if (e.name === 'TimeoutError')
          throw fail(`no answer from ${o.url} within ${o.timeoutMs} ms; is the service up?`);
        throw fail(`cannot reach ${o.url}: ${e.message}. Check baseURL and that the service runs.`);
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) {
        const hint =
          response.status === 401 || response.status === 403
            ? ' Check apiKey.'
            : response.status === 404
              ? ` Check baseURL and path (format "${o.format}").`
              : '';
        throw fail(`${o.url} answered HTTP ${response.status}: ${text.slice(0, 200)}.${hint}`, {
          status: response.status,
        });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw fail(`${o.url} answered something that is not JSON: ${text.slice(0, 200)}`);
      }
      const scores = scoresOf(parsed, documents.length);
      if (!scores) {
        throw fail(
          `${o.url} answered without one score per document (expected ${documents.length} results with index and relevance_score or score).`,
        );
      }
      const usage = usageOf(parsed);
      return usage ? { scores, usage } : { scores };
    },
  };
}
