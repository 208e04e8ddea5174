import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { createInMemoryKnowledgeStore, createInMemoryTranscriptStore, createStack, MemError, Runner } from '@mem/core';
import { calibrationTexts } from '@mem/core/adapter';
import { describeEmbedder } from '@mem/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbedder, type OpenAIEmbedderOptions } from './index.js';

// A real OpenAI-compatible server on 127.0.0.1 (node:http). Its behaviour is chosen by the model name, so the
// tests share one server and need no mutable switches:
//   any model     → 200, deterministic vectors from the text, `data` in reverse order on purpose
//   'short'       → 200, but vectors of 3 dimensions
//   'locked'      → 401 unless `Authorization: Bearer right-key`; the body echoes the key it got
//   'broken'      → 500
//   'no-usage'    → 200 without a `usage` block (as some local servers answer)
// `usage.prompt_tokens` is the number of words of the inputs (tokensOf), so a test can predict it.

const GOOD_KEY = 'right-key';
const DEFAULT_DIM = 8;

interface Seen {
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
  headers: IncomingHttpHeaders;
}

/** The fake's token count: words of every text (an empty text counts 1, as a real tokenizer's end token would). */
function tokensOf(inputs: string[]): number {
  return inputs.reduce((n, t) => n + Math.max(1, t.split(/\s+/).filter(Boolean).length), 0);
}

/** Deterministic vector for a text: FNV-1a over the text and the coordinate, mapped to [-1, 1). */
function vectorFor(text: string, dimension: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < dimension; j++) {
    let h = 0x811c9dc5;
    for (const ch of `${j}|${text}`) {
      h ^= ch.codePointAt(0)!;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    out.push(h / 2 ** 31 - 1);
  }
  return out;
}

let server: Server;
let baseURL: string;
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, payload: unknown) => {
      // retry-after-ms keeps the SDK's own retry backoff out of the test's run time.
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'];
    seen.push({ body, headers: req.headers });
    if (body.model === 'broken') {
      send(500, { error: { message: 'the GPU caught fire', type: 'server_error' } });
      return;
    }
    if (body.model === 'locked' && req.headers.authorization !== `Bearer ${GOOD_KEY}`) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      send(401, {
        error: {
          message: `Incorrect API key provided: ${given}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    }
    const dimension = body.model === 'short' ? 3 : (body.dimensions ?? DEFAULT_DIM);
    const data = body.input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vectorFor(text, dimension),
    }));
    data.reverse();
    const tokens = tokensOf(body.input);
    send(200, {
      object: 'list',
      data,
      model: body.model,
      ...(body.model === 'no-usage' ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  seen = [];
});

function make(options: Partial<OpenAIEmbedderOptions> = {}) {
  return createOpenAIEmbedder({ baseURL, model: 'test-embed', maxRetries: 0, ...options });
}

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(MemError.is(error), `expected a MemError, got ${String(error)}`).toBe(true);
  return error as MemError;
}

const texts = ['alpha', 'a somewhat longer second text', '', 'δ — unicode', 'fifth'];

describe('createOpenAIEmbedder against a local OpenAI-compatible server', () => {
  it('returns vectors in input order although the server answers out of order', async () => {
    const embedder = make();
    expect(embedder.id).toBe('openai:test-embed');
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    vectors.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(Array.from(v)).toEqual(Array.from(Float32Array.from(vectorFor(texts[i]!, DEFAULT_DIM))));
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toMatchObject({ model: 'test-embed', input: texts, encoding_format: 'float' });
    expect(seen[0]!.body).not.toHaveProperty('dimensions');
    expect(await embedder.embed([])).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('learns the dimension from the first response; reading it earlier throws a pointer to init()', async () => {
    const embedder = make();
    const early = (() => {
      try {
        return embedder.dimension;
      } catch (e) {
        return e;
      }
    })();
    expect(MemError.is(early, 'EMBEDDER_FAILED')).toBe(true);
    expect((early as Error).message).toMatch(/init\(\)/);

    expect(await Promise.all([embedder.init(), embedder.init()])).toEqual([DEFAULT_DIM, DEFAULT_DIM]);
    expect(seen).toHaveLength(1); // one shared probe
    expect(embedder.dimension).toBe(DEFAULT_DIM);
    await embedder.init();
    expect(seen).toHaveLength(1);

    // With a configured dimension nothing is probed.
    const configured = make({ dimension: DEFAULT_DIM });
    expect(configured.dimension).toBe(DEFAULT_DIM);
    expect(await configured.init()).toBe(DEFAULT_DIM);
    expect(seen).toHaveLength(1);
  });

  it('splits large inputs into batches of batchSize and keeps the order across them', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `text number ${i}`);
    const vectors = await make().embed(many);
    expect(seen.map((s) => s.body.input.length)).toEqual([128, 128, 44]);
    vectors.forEach((v, i) => {
      expect(Array.from(v)).toEqual(Array.from(Float32Array.from(vectorFor(many[i]!, DEFAULT_DIM))));
    });

    seen = [];
    await make({ batchSize: 2 }).embed(texts);
    expect(seen.map((s) => s.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
  });

  it('passes dimensions through and expects vectors of that length', async () => {
    const embedder = make({ dimensions: 16 });
    expect(embedder.id).toBe('openai:test-embed:16');
    expect(embedder.dimension).toBe(16);
    const [v] = await embedder.embed(['hello']);
    expect(v).toHaveLength(16);
    expect(seen[0]!.body.dimensions).toBe(16);
    expect(make({ dimensions: 16, id: 'custom' }).id).toBe('custom');
  });

  it('rejects a vector of the wrong length, naming expected and actual', async () => {
    const configured = await failure(make({ model: 'short', dimension: 8 }).embed(['x']));
    expect(configured.code).toBe('EMBEDDER_FAILED');
    expect(configured.retryable).toBe(false);
    expect(configured.message).toMatch(/3 dimensions, expected 8/);

    // Learned: the first call fixes the length, a later different length fails.
    const learned = make({ model: 'short' });
    await learned.embed(['x']);
    expect(learned.dimension).toBe(3);
    const viaDimensions = await failure(make({ model: 'short', dimensions: 5 }).embed(['x']));
    expect(viaDimensions.message).toMatch(/3 dimensions, expected 5/);
  });

  it('turns a 401 into a message about the API key that never contains the key', async () => {
    const wrongKey = 'sk-test-0123456789-super-secret';
    const error = await failure(make({ model: 'locked', apiKey: wrongKey }).embed(['x']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/API key/);
    expect(error.message).toMatch(/apiKey/);
    expect(error.message).toContain(baseURL);
    for (const rendering of [
      error.message,
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      String(error.stack),
    ]) {
      expect(rendering).not.toContain(wrongKey);
    }
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${wrongKey}`);

    // The right key works; no key sends no Authorization header at all.
    await make({ model: 'locked', apiKey: GOOD_KEY }).embed(['x']);
    await make().embed(['x']);
    expect(seen[2]!.headers.authorization).toBeUndefined();
  });

  it('turns a 500 into a retryable EMBEDDER_FAILED naming the base URL', async () => {
    const error = await failure(make({ model: 'broken' }).embed(['x']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(baseURL);
    expect(error.message).toMatch(/HTTP 500/);
    expect(seen).toHaveLength(1); // maxRetries 0

    // The SDK retries 5xx itself when asked to.
    seen = [];
    await failure(make({ model: 'broken', maxRetries: 1 }).embed(['x']));
    expect(seen).toHaveLength(2);
  });

  it('turns an unreachable server into a retryable EMBEDDER_FAILED naming the base URL', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');

    const url = `http://127.0.0.1:${port}/v1`;
    const error = await failure(make({ baseURL: url }).embed(['x']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('rejects bad options and input with INVALID_INPUT', async () => {
    const construct = (options: OpenAIEmbedderOptions) => {
      try {
        createOpenAIEmbedder(options);
        return undefined;
      } catch (e) {
        return e;
      }
    };
    for (const options of [
      { model: '' },
      { model: 'm', batchSize: 0 },
      { model: 'm', dimensions: 8, dimension: 9 },
      { model: 'm', baseURL: 'not a url' },
      { model: 'm', baseURL: 'http://user:pass@127.0.0.1:1/v1' },
      { model: 'm', baseURL: 'http://127.0.0.1:1/v1?key=1' },
      { model: 'm', maxRetries: -1 },
    ]) {
      expect(MemError.is(construct(options), 'INVALID_INPUT'), JSON.stringify(options)).toBe(true);
    }
    const error = await failure(make().embed(['ok', null as unknown as string]));
    expect(error.code).toBe('INVALID_INPUT');
    expect(seen).toHaveLength(0);
  });
});

describe('token usage of createOpenAIEmbedder', () => {
  it('embedWithUsage reads the API usage block, summed over batches; a server without one reports zero', async () => {
    const many = Array.from({ length: 5 }, (_, i) => `text number ${i}`);
    const r = await make({ batchSize: 2 }).embedWithUsage(many);
    expect(seen.map((x) => x.body.input.length)).toEqual([2, 2, 1]);
    expect(r.vectors).toHaveLength(5);
    expect(r.usage).toEqual({ inputTokens: 15, outputTokens: 0, totalTokens: 15 });

    const none = await make({ model: 'no-usage' }).embedWithUsage(['x y']);
    expect(none.vectors).toHaveLength(1);
    expect(none.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it("a store's result and a runner turn's report show the embedding tokens", async () => {
    const embedder = make({ dimension: DEFAULT_DIM });
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      transcripts: createInMemoryTranscriptStore(),
      embedder,
    });
    const p = { space: 'usage', agentId: 'ada', role: 'worker' as const };
    const content = 'Friday deploys need a rollback plan';
    const stored = await stack.knowledge.store(p, { content });
    expect(stored.usage).toEqual({ inputTokens: 6, outputTokens: 0, totalTokens: 6 });

    const found = await stack.knowledge.searchReport(p, { query: 'rollback plan' });
    expect(found.usage.totalTokens).toBe(2);

    const runner = new Runner(stack, { contextWindow: 8_000 });
    const task = 'plan the Friday deploy rollback';
    const turn = await runner.assembleTurn({
      principal: p,
      task,
      taskId: 't1',
      messages: [{ role: 'user', content: 'go' }],
    });
    // The stack's first recall also embeds the calibration pairs (once per stack).
    const recallTokens = 5 + tokensOf(calibrationTexts());
    expect(turn.report.spent).toEqual([
      {
        operation: 'recall-embedding',
        by: 'openai:test-embed',
        usage: { inputTokens: recallTokens, outputTokens: 0, totalTokens: recallTokens },
      },
    ]);
    expect(turn.report.usage.totalTokens).toBe(recallTokens);

    const ended = await runner.endTask({ principal: p, taskId: 't1', summary: 'Wrote the rollback plan.' });
    const memoryTokens = tokensOf([`Task t1: ${task}\n\nWrote the rollback plan.`]); // the stored content
    expect(ended.stored?.usage.totalTokens).toBe(memoryTokens);
    expect(ended.spent).toEqual([
      { operation: 'memory-embedding', by: 'openai:test-embed', usage: ended.stored!.usage },
    ]);
    expect(ended.usage.totalTokens).toBe(memoryTokens);

    const session = await runner.endSession({ principal: p, summary: 'Planned a rollback.' });
    expect(session.spent).toEqual([
      {
        operation: 'memory-embedding',
        by: 'openai:test-embed',
        usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 },
      },
    ]);
    expect(session.usage.totalTokens).toBe(3);
  });
});

// The port's conformance suite, against the same local server (embedWithUsage included).
describeEmbedder('openai (local fake server)', async () => ({
  embedder: make({ dimension: DEFAULT_DIM }),
  expectedInputTokens: tokensOf,
}));
