/**
 * @mem/rerank-http against a rerank service on 127.0.0.1 inside the test (Cohere-style and TEI answers), and a stack
 * whose searches it re-scores.
 */
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, MemError } from '@mem/core';
import { type ChatRequest, describeReranker, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpReranker } from '../src/index.js';

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
/** The fake model: how many query words a text shares (a raw score, not in [0, 1]). */
const overlap = (query: string, text: string) => {
  const q = words(query);
  return [...words(text)].filter((w) => q.has(w)).length * 2 - 3;
};

const KEY = ['test', 'only', 'rerank', 'key'].join('-');
let cohere: Awaited<ReturnType<typeof startFakeChatServer>>;
let tei: Awaited<ReturnType<typeof startFakeChatServer>>;
let broken: Awaited<ReturnType<typeof startFakeChatServer>>;
let silent: Awaited<ReturnType<typeof startFakeChatServer>>;
let timeful: Awaited<ReturnType<typeof startFakeChatServer>>;
const seen: ChatRequest[] = [];

beforeAll(async () => {
  cohere = await startFakeChatServer(
    (request, send) => {
      seen.push(request);
      if (request.headers.authorization !== `Bearer ${KEY}`)
        return send(401, { error: `bad key ${request.headers.authorization}` });
      const { query, documents } = request.body as { query: string; documents: string[] };
      const results = documents
        .map((d, index) => ({ index, relevance_score: overlap(query, d) }))
        .sort((a, b) => b.relevance_score - a.relevance_score);
      send(200, { id: 'r1', results, usage: { prompt_tokens: 42, total_tokens: 42 } });
    },
    { path: '/v1/rerank' },
  );
  tei = await startFakeChatServer(
    (request, send) => {
      const { query, texts } = request.body as { query: string; texts: string[] };
      send(200, texts.map((t, index) => ({ index, score: overlap(query, t) })).reverse());
    },
    { path: '/rerank' },
  );
  broken = await startFakeChatServer(
    (request, send) => {
      const n = (request.body.documents as string[]).length;
      send(200, { results: Array.from({ length: n }, () => ({ index: 0, relevance_score: 1 })) });
    },
    { path: '/v1/rerank' },
  );
  silent = await startFakeChatServer(() => {}, { path: '/v1/rerank' }); // never answers
  // A model with a known taste, for the stack tests: texts that state a time first.
  timeful = await startFakeChatServer(
    (request, send) => {
      const documents = request.body.documents as string[];
      send(200, {
        results: documents.map((d, index) => ({ index, relevance_score: /\d{1,2}:\d{2}/.test(d) ? 4 : -4 })),
      });
    },
    { path: '/v1/rerank' },
  );
});
afterAll(async () => {
  for (const s of [cohere, tei, broken, silent, timeful]) await s.close();
});

describeReranker('@mem/rerank-http (Cohere-style)', () =>
  createHttpReranker({ baseURL: cohere.baseURL, model: 'bge-reranker', apiKey: KEY }),
);
describeReranker('@mem/rerank-http (TEI)', () =>
  createHttpReranker({ baseURL: tei.baseURL.replace(/\/v1$/, ''), format: 'tei' }),
);

describe('createHttpReranker', () => {
  it('sends model, query, documents and top_n with the key, and reports the tokens the service counted', async () => {
    const reranker = createHttpReranker({ baseURL: cohere.baseURL, model: 'bge-reranker', apiKey: KEY });
    const before = seen.length;
    const result = await reranker.rerank({ query: 'staging reset', documents: ['staging reset Sunday', 'lunch'] });
    expect(result.scores).toEqual([1, -3]);
    expect(result.usage).toEqual({ inputTokens: 42, outputTokens: 0, totalTokens: 42 });
    expect(seen[before]!.body).toEqual({
      model: 'bge-reranker',
      query: 'staging reset',
      documents: ['staging reset Sunday', 'lunch'],
      top_n: 2,
      return_documents: false,
    });
    expect(reranker.id).toBe('http:bge-reranker');
  });

  it('fails with RERANKER_FAILED, retryable, saying what to check and never showing the key', async () => {
    const wrongKey = `${KEY}-wrong`;
    const denied = await createHttpReranker({ baseURL: cohere.baseURL, apiKey: wrongKey })
      .rerank({ query: 'q', documents: ['a'] })
      .then(
        () => null as never as MemError,
        (e: unknown) => e as MemError,
      );
    expect(MemError.is(denied, 'RERANKER_FAILED')).toBe(true);
    expect(denied.retryable).toBe(true);
    expect(denied.message).toContain('HTTP 401');
    expect(denied.message).toContain('Check apiKey');
    expect(denied.message).not.toContain(wrongKey);

    const malformed = await createHttpReranker({ baseURL: broken.baseURL })
      .rerank({ query: 'q', documents: ['a', 'b'] })
      .then(
        () => null as never as MemError,
        (e: unknown) => e as MemError,
      );
    expect(MemError.is(malformed, 'RERANKER_FAILED')).toBe(true);
    expect(malformed.message).toContain('one score per document');

    const slow = await createHttpReranker({ baseURL: silent.baseURL, timeoutMs: 200 })
      .rerank({ query: 'q', documents: ['a'] })
      .then(
        () => null as never as MemError,
        (e: unknown) => e as MemError,
      );
    expect(MemError.is(slow, 'RERANKER_FAILED')).toBe(true);
    expect(slow.message).toContain('within 200 ms');

    const missing = await createHttpReranker({ baseURL: 'http://127.0.0.1:9/v1' })
      .rerank({ query: 'q', documents: ['a'] })
      .then(
        () => null as never as MemError,
        (e: unknown) => e as MemError,
      );
    expect(MemError.is(missing, 'RERANKER_FAILED')).toBe(true);
    expect(missing.message).toContain('cannot reach');
  });

  it('refuses bad options with INVALID_INPUT', () => {
    const refused = (o: unknown, text: RegExp) => {
      let error: unknown;
      try {
        createHttpReranker(o as never);
      } catch (e) {
        error = e;
      }
      expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
      expect((error as Error).message).toMatch(text);
    };
    refused({ baseURL: 'localhost:8000' }, /baseURL must use http or https|must be an http/);
    refused({ baseURL: 'ftp://x' }, /http or https/);
    refused({ baseURL: 'http://x', format: 'jina' }, /format must be/);
    refused({ baseURL: 'http://x', timeoutMs: 0 }, /timeoutMs/);
    refused({ baseURL: 'http://x', model: '' }, /model must be/);
  });
});

describe('a stack with the reranker', () => {
  const boot = (baseURL: string) => {
    const warnings: unknown[] = [];
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      embedder: createHashingEmbedder(),
      reranker: createHttpReranker({ baseURL, model: 'bge-reranker', apiKey: KEY, timeoutMs: 300 }),
      logger: { info: () => {}, warn: (...a: unknown[]) => warnings.push(a), error: () => {} },
    });
    return { stack, warnings };
  };
  const me = { space: 'acme', agentId: 'coder', role: 'worker' } as const;
  const seed = async (stack: ReturnType<typeof boot>['stack']) => {
    // The keyword arm puts the short, term-dense text first; the fake model prefers the one that states a time.
    await stack.knowledge.store(me, {
      content: 'Mobile deploy: mobile deploy checklist, mobile deploy notes.',
      name: 'Mobile deploy checklist',
    });
    await stack.knowledge.store(me, {
      content:
        'The mobile deploy window opens on Tuesday at 10:00 UTC, after the release review with the whole product team.',
      name: 'Mobile deploy window',
    });
  };

  it('re-scores the fused top results: the reranker’s choice comes first', async () => {
    const plain = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() });
    await seed(plain);
    const query = 'mobile deploy';
    const unranked = await plain.knowledge.search(me, { query });
    expect(unranked[0]!.name).toBe('Mobile deploy checklist');

    const { stack } = boot(timeful.baseURL);
    await seed(stack);
    const ranked = await stack.knowledge.search(me, { query });
    expect(ranked.map((r) => r.name)).toEqual(['Mobile deploy window', 'Mobile deploy checklist']);
    expect(ranked[0]!.relevance).toBeCloseTo(1 / (1 + Math.exp(-4)), 6); // a raw score of 4 through the logistic
  });

  it('a reranker that is down leaves the order as it was and logs why; the search still answers', async () => {
    const { stack, warnings } = boot(silent.baseURL);
    await seed(stack);
    const results = await stack.knowledge.search(me, { query: 'mobile deploy' });
    expect(results[0]!.name).toBe('Mobile deploy checklist');
    expect(JSON.stringify(warnings)).toContain('rerank failed');
  });
});
