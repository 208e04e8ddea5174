import { request as httpRequest } from 'node:http';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createStack,
  MemError,
  type Stack,
  searchResultJson,
} from '@mem/core';
import type { KnowledgeStore } from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { call, memoryStack, testServer, until, worker } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(options: Parameters<typeof testServer>[0] = {}) {
  const s = await testServer(options);
  servers.push(s);
  return s;
}

/** A stack whose knowledge store can be made to fail or stall, method by method. */
function faultyStack(faults: Partial<Record<keyof KnowledgeStore, (...args: any[]) => Promise<unknown>>>): Stack {
  const inner = createInMemoryKnowledgeStore();
  const knowledge = new Proxy(inner, {
    get(target, prop, receiver) {
      const fault = faults[prop as keyof KnowledgeStore];
      if (fault) return (...args: unknown[]) => fault(target, ...args);
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return createStack({ knowledge, embedder: createHashingEmbedder() });
}

describe('knowledge routes', () => {
  it('stores (201, then 200 for the same content), searches, reads, edits, versions, rates and deletes', async () => {
    const s = await server();
    const stored = await call(s.url, 'POST', '/v1/memories', {
      body: {
        content: 'The nightly build publishes artifacts to the staging bucket.',
        name: 'Nightly artifacts',
        tags: ['ci'],
      },
    });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ chunkCount: 1, deduplicated: false });
    const { id, key } = stored.body;
    expect(key).toBe(`/agent/manual/${id}`);

    const again = await call(s.url, 'POST', '/v1/memories', {
      body: { content: 'The nightly build publishes artifacts to the staging bucket.' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, deduplicated: true });

    const search = await call(s.url, 'POST', '/v1/memories/search', { body: { query: 'nightly build artifacts' } });
    expect(search.status).toBe(200);
    const first = search.body.results[0];
    // The shape of `mem search --json` (docs/cli.md), from the one shared mapping.
    expect(Object.keys(first).sort()).toEqual(Object.keys(searchResultJson.shape).sort());
    expect(first).toMatchObject({ id, key, name: 'Nightly artifacts', scope: 'agent', source: 'manual', tags: ['ci'] });
    for (const field of ['similarity', 'relevance', 'score', 'createdAt', 'content'])
      expect(first).toHaveProperty(field);

    const got = await call(s.url, 'GET', `/v1/memories/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, accessCount: 1, chunks: [{ chunkIndex: 0 }] });
    const peeked = await call(s.url, 'GET', `/v1/memories/${id}?peek=true`);
    expect(peeked.body.accessCount).toBe(1);

    const edited = await call(s.url, 'PATCH', `/v1/memories/${id}`, {
      body: { intent: 'bucket renamed', mode: 'exact', oldText: 'staging bucket', newText: 'release bucket' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id, version: 2, action: 'replaced' });
    const moved = await call(s.url, 'PATCH', `/v1/memories/${id}`, {
      body: { intent: 'promote', newKey: '/longterm/facts/ci/nightly-artifacts' },
    });
    expect(moved.body).toMatchObject({ key: '/longterm/facts/ci/nightly-artifacts', action: 'moved', version: 3 });

    const versions = await call(s.url, 'GET', `/v1/memories/${id}/versions`);
    expect(versions.body.versions.map((v: { intent: string }) => v.intent)).toEqual(['bucket renamed', 'promote']);
    expect(versions.body.versions[0].oldContent).toContain('staging bucket');

    const rated = await call(s.url, 'POST', `/v1/memories/${id}/ratings`, { body: { useful: true, taskId: 'T-1' } });
    expect(rated.status).toBe(200);
    // The author's vote on its own memory is recorded, not counted (issue 15).
    expect(rated.body).toMatchObject({ id, alpha: 1, beta: 1, counted: false });
    const twice = await call(s.url, 'POST', `/v1/memories/${id}/ratings`, { body: { useful: false, taskId: 'T-1' } });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('ALREADY_RATED');

    const deleted = await call(s.url, 'DELETE', `/v1/memories/${id}`);
    expect(deleted.body).toEqual({ id, deletedChunks: 1 });
    const gone = await call(s.url, 'GET', `/v1/memories/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('NOT_FOUND');
  });

  it('refuses an id in the PATCH body, unknown fields and bad values with 400 and the field named', async () => {
    const s = await server();
    const { body } = await call(s.url, 'POST', '/v1/memories', { body: { content: 'Standup is at 10:00.' } });
    const withId = await call(s.url, 'PATCH', `/v1/memories/${body.id}`, {
      body: { id: 'other', intent: 'x', content: 'Standup is at 10:30.' },
    });
    expect(withId.status).toBe(400);
    expect(withId.body).toEqual({ code: 'INVALID_INPUT', message: expect.stringContaining('"id"') });
    const unknown = await call(s.url, 'POST', '/v1/memories', { body: { content: 'x', space: 'other' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('"space"');
    const limit = await call(s.url, 'POST', '/v1/memories/search', { body: { query: 'x', limit: 500 } });
    expect(limit.status).toBe(400);
    expect(limit.body.message).toContain('limit');
  });

  it('maps key rules and secrets to 400/403/409', async () => {
    const s = await server();
    const invalid = await call(s.url, 'POST', '/v1/memories', { body: { content: 'a', key: '/Bad Key' } });
    expect([invalid.status, invalid.body.code]).toEqual([400, 'INVALID_KEY']);
    const leadOnly = await call(s.url, 'POST', '/v1/memories', {
      body: { content: 'Founded in 2019.', key: '/longterm/company-story' },
    });
    expect([leadOnly.status, leadOnly.body.code]).toEqual([403, 'FORBIDDEN_KEY']);
    await call(s.url, 'POST', '/v1/memories', { body: { content: 'one', key: '/projects/alpha/notes' } });
    const taken = await call(s.url, 'POST', '/v1/memories', { body: { content: 'two', key: '/projects/alpha/notes' } });
    expect([taken.status, taken.body.code]).toEqual([409, 'KEY_TAKEN']);
    const secret = await call(s.url, 'POST', '/v1/memories', {
      body: { content: 'deploy with AKIAIOSFODNN7EXAMPLE please' },
    });
    expect([secret.status, secret.body.code]).toEqual([400, 'SECRET_DETECTED']);
    expect(secret.text).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('serves dedup-check, recall, smart-recall, task-context, index, stats and gc', async () => {
    const s = await server();
    await call(s.url, 'POST', '/v1/memories', {
      body: { content: 'Invoices are retried three times before the account is paused.', name: 'Invoice retries' },
    });
    const dup = await call(s.url, 'POST', '/v1/memories/dedup-check', {
      body: { text: 'Invoices are retried three times before the account is paused.' },
    });
    expect(dup.body).toMatchObject({ isDuplicate: true, topSimilarity: 1 });
    const recall = await call(s.url, 'POST', '/v1/recall', {
      body: { task: 'why was the account paused after invoices' },
    });
    expect(recall.status).toBe(200);
    expect(recall.body.block).toContain('### Relevant Past Knowledge');
    expect(recall.body.memories[0].name).toBe('Invoice retries');
    // Each recalled memory says how sure the match is; the default threshold is 0.6.
    for (const m of recall.body.memories) expect(m.confidence).toBeGreaterThanOrEqual(0.6);
    const none = await call(s.url, 'POST', '/v1/recall', { body: { task: 'zebra giraffe', threshold: 0.99 } });
    expect(none.body).toEqual({
      block: null,
      memories: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
    const smart = await call(s.url, 'POST', '/v1/smart-recall', {
      body: { queries: ['invoices retried', 'account paused'] },
    });
    expect(smart.body.results[0]).toMatchObject({ name: 'Invoice retries', hits: 2 });
    const ctx = await call(s.url, 'POST', '/v1/task-context', { body: { task: 'invoice retry policy' } });
    expect(ctx.body.task).toBe('invoice retry policy');
    expect(ctx.body.memories.length).toBeGreaterThan(0);
    const indexed = await call(s.url, 'POST', '/v1/index', {
      body: { sourcePath: 'docs/runbook.md', content: '# Runbook\nRestart the worker.' },
    });
    expect([indexed.status, indexed.body.status]).toEqual([201, 'created']);
    const unchanged = await call(s.url, 'POST', '/v1/index', {
      body: { sourcePath: 'docs/runbook.md', content: '# Runbook\nRestart the worker.' },
    });
    expect([unchanged.status, unchanged.body.status]).toEqual([200, 'unchanged']);
    const stats = await call(s.url, 'GET', '/v1/stats');
    expect(stats.body).toMatchObject({ space: 'default', documents: 2, bySource: { manual: 1, file_index: 1 } });
    const gc = await call(s.url, 'POST', '/v1/gc');
    expect(gc.body).toMatchObject({ deletedChunks: 0 });
    const learn = await call(s.url, 'POST', '/v1/learnings', {
      body: { agentId: 'coder', learning: 'Run the linter before pushing.', category: 'best-practice' },
    });
    expect([learn.status, learn.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('lists memories newest first with filters', async () => {
    const s = await server();
    for (const [content, tags] of [
      ['first memory about apples', ['fruit']],
      ['second memory about pears', ['fruit', 'green']],
      ['third memory about carrots', ['veg']],
    ] as const) {
      await call(s.url, 'POST', '/v1/memories', { body: { content, tags: [...tags] } });
    }
    const all = await call(s.url, 'GET', '/v1/memories');
    expect(all.body.memories.map((m: { preview: string }) => m.preview)).toEqual([
      'third memory about carrots',
      'second memory about pears',
      'first memory about apples',
    ]);
    const fruit = await call(s.url, 'GET', '/v1/memories?tags=fruit&limit=1');
    expect(fruit.body).toMatchObject({ matched: 2, truncated: true });
    expect(fruit.body.memories[0].preview).toContain('pears');
    const bad = await call(s.url, 'GET', '/v1/memories?limit=ten');
    expect(bad.status).toBe(400);
  });

  it('exports JSON Lines and imports them elsewhere, reporting refused lines', async () => {
    const a = await server();
    await call(a.url, 'POST', '/v1/memories', { body: { content: 'Alpha fact.', tags: ['x'] } });
    await call(a.url, 'POST', '/v1/memories', { body: { content: 'Beta fact.', key: '/longterm/facts/greek/beta' } });
    const exported = await call(a.url, 'GET', '/v1/export');
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = exported.text.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).content)).toEqual(['Alpha fact.', 'Beta fact.']);

    const b = await server();
    const body = `${exported.text}not json\n{"content":"Lead story","key":"/longterm/company-story"}\n`;
    const imported = await call(b.url, 'POST', '/v1/import', {
      raw: body,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: 2, duplicates: 0, skipped: 2 });
    expect(imported.body.errors).toEqual([
      { line: 3, code: 'INVALID_INPUT', message: expect.stringContaining('not valid JSON') },
      { line: 4, code: 'FORBIDDEN_KEY', message: expect.any(String) },
    ]);
    const again = await call(b.url, 'POST', '/v1/import', { raw: exported.text });
    expect(again.body).toMatchObject({ imported: 0, duplicates: 2 });
    const search = await call(b.url, 'POST', '/v1/memories/search', { body: { query: 'beta fact' } });
    expect(search.body.results[0]).toMatchObject({ key: '/longterm/facts/greek/beta' });
    expect(search.body.results[0].createdAt).toBe(JSON.parse(lines[1]!).createdAt);
  });
});

describe('transport rules', () => {
  it('refuses invalid JSON, non-objects, unknown routes and methods with {code, message}', async () => {
    const s = await server();
    const bad = await call(s.url, 'POST', '/v1/memories', {
      raw: '{"content": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'INVALID_INPUT', message: expect.stringContaining('not valid JSON') });
    const arr = await call(s.url, 'POST', '/v1/memories', { raw: '[1,2]' });
    expect([arr.status, arr.body.code]).toEqual([400, 'INVALID_INPUT']);
    const route = await call(s.url, 'GET', '/v1/nothing-here');
    expect([route.status, route.body.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    const method = await call(s.url, 'PUT', '/v1/memories');
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toContain('POST');
    const mcpGet = await call(s.url, 'GET', '/mcp');
    expect(mcpGet.status).toBe(405);
  });

  it('limits the body size (413), whether declared up front or streamed', async () => {
    const s = await server({ bodyLimitBytes: 1024 });
    const big = await call(s.url, 'POST', '/v1/memories', { body: { content: 'x'.repeat(2000) } });
    expect([big.status, big.body.code]).toEqual([413, 'TOO_LARGE']);
    // Chunked (no content-length): counted while streaming.
    const streamed = await new Promise<{ status: number; body: string }>((ok, fail) => {
      const req = httpRequest(
        `${s.url}/v1/memories`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', fail);
      req.write('{"content":"');
      for (let i = 0; i < 4; i++) req.write('y'.repeat(500));
      req.end('"}');
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).code).toBe('TOO_LARGE');
    // The connection is still usable and small bodies pass.
    const small = await call(s.url, 'POST', '/v1/memories', { body: { content: 'small enough' } });
    expect(small.status).toBe(201);
  });

  it('gives unexpected errors a 500 naming the request id, with details only in the log', async () => {
    const logger = memoryLogger();
    const stack = faultyStack({
      stats: async () => {
        throw new Error('disk on fire at /secret/path');
      },
    });
    const s = await server({ stack, logger });
    const r = await call(s.url, 'GET', '/v1/stats', { headers: { 'x-request-id': 'req-500-test' } });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ code: 'INTERNAL', message: 'internal error, request id req-500-test' });
    expect(r.text).not.toContain('disk on fire');
    expect(r.text).not.toContain('at ');
    const logged = logger.lines.find((l) => l.msg === 'request failed');
    expect(logged).toMatchObject({ requestId: 'req-500-test', operation: 'stats' });
    expect(String(logged?.error)).toContain('disk on fire');
  });

  it('maps STORE_UNAVAILABLE to 503 and reports it on /readyz', async () => {
    const down = async () => {
      throw new MemError('STORE_UNAVAILABLE', 'sqlite: database is locked');
    };
    const s = await server({ stack: faultyStack({ stats: down, getEmbeddingInfo: down }) });
    const r = await call(s.url, 'GET', '/v1/stats');
    expect([r.status, r.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
    expect((await call(s.url, 'GET', '/healthz')).status).toBe(200);
    const ready = await call(s.url, 'GET', '/readyz');
    expect([ready.status, ready.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
    const ok = await server();
    expect((await call(ok.url, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('echoes or creates request ids and logs one line per request without content or keys', async () => {
    const logger = memoryLogger();
    const s = await server({ logger });
    const content = 'The staging password rotation happens on Mondays.';
    const a = await call(s.url, 'POST', '/v1/memories', {
      body: { content, key: '/ops/rotation' },
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(a.headers.get('x-request-id')).toBe('abc-123');
    const b = await call(s.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await until(() => (logger.lines.filter((l) => l.msg === 'request').length >= 2 ? true : undefined));
    const lines = logger.lines.filter((l) => l.msg === 'request');
    expect(lines[0]).toMatchObject({
      requestId: 'abc-123',
      method: 'POST',
      path: '/v1/memories',
      status: 201,
      principal: 'default/main',
      role: 'worker',
      operation: 'memory-store',
    });
    expect(typeof lines[0]!.ms).toBe('number');
    const all = JSON.stringify(logger.lines);
    expect(all).not.toContain('password rotation');
    expect(all).not.toContain('/ops/rotation');
  });

  it('rate-limits per caller with a token bucket (429 + Retry-After)', async () => {
    const s = await server({ rateLimit: { ratePerSecond: 0.5, burst: 3 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const r = await call(s.url, 'GET', '/v1/stats');
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get('retry-after');
        expect(r.body.code).toBe('RATE_LIMITED');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Service routes are not limited.
    expect((await call(s.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('refuses to run open beyond loopback', async () => {
    await expect(
      startServer({ stack: memoryStack(), host: '0.0.0.0', port: 0, defaultPrincipal: worker, open: true }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('mem keys create') });
  });
});

describe('graceful shutdown', () => {
  it('stops accepting, finishes the in-flight write, then closes the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    let entered = false;
    let storeClosed = false;
    const stack = faultyStack({
      insertDocument: async (target: KnowledgeStore, chunks: unknown) => {
        entered = true;
        await gate;
        return target.insertDocument(chunks as never);
      },
      close: async (target: KnowledgeStore) => {
        storeClosed = true;
        return target.close();
      },
    });
    const s = await startServer({
      stack,
      port: 0,
      defaultPrincipal: worker,
      logger: memoryLogger(),
      closeStack: true,
      open: true,
    });
    const write = call(s.url, 'POST', '/v1/memories', { body: { content: 'Written during shutdown.' } });
    await until(() => (entered ? true : undefined), 5000, 'the write to start');
    const closing = s.close();
    let closed = false;
    void closing.then(() => (closed = true));
    // New connections are refused while the write is still running.
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    expect(closed).toBe(false);
    expect(storeClosed).toBe(false);
    release();
    const r = await write;
    expect(r.status).toBe(201);
    await closing;
    expect(storeClosed).toBe(true);
  });
});
