/**
 * Issue 15, point 4: one tenant cannot stall the others. Embedding is shared between spaces in round-robin slices
 * (a slow, serial embedder in the test, released text by text, makes it deterministic), and a request pays rate
 * tokens in proportion to its work: per MCP tools/call in a batch, per import line, per size.
 */
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack } from '@mem/core';
import { largeMemory, serialEmbedder } from '@mem/testkit/attack';
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../src/fair-queue.js';
import { KeyStore } from '../src/keys.js';
import type { ServerOptions } from '../src/server.js';
import { call, testServer, until } from './helpers.js';
import { MCP_HEADERS, rawRequest, toolCall } from './raw-http.js';

/** A serial embedder (like a local model on one core) that embeds one text per token the test releases. */
function gatedEmbedder() {
  let tokens = 0;
  const waiters: (() => void)[] = [];
  const embedder = serialEmbedder(createHashingEmbedder(), async () => {
    while (tokens === 0) await new Promise<void>((ok) => waiters.push(ok));
    tokens--;
  });
  return {
    embedder,
    get embedded() {
      return embedder.embedded;
    },
    /** Let `n` more texts through. */
    release(n = 1) {
      tokens += n;
      for (const w of waiters.splice(0)) w();
    },
    /** True while the embedder waits for a token. */
    get blocked() {
      return waiters.length > 0;
    },
  };
}

/** 200 paragraphs: many chunks to embed. */
const LARGE = largeMemory(200);

async function twoSpaces(options: Partial<ServerOptions>) {
  const gate = gatedEmbedder();
  const keys = KeyStore.open(':memory:');
  const a = (await keys.create({ space: 'tenant-a', agentId: 'bulk', role: 'worker' })).key;
  const b = (await keys.create({ space: 'tenant-b', agentId: 'small', role: 'worker' })).key;
  const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: gate.embedder });
  const s = await testServer({ stack, keys, rateLimit: false, bodyLimitBytes: 8 * 1024 * 1024, ...options });
  return { gate, keys, a, b, s };
}

/** Store LARGE in space A, then a small memory in B; release texts one by one until B is stored. */
async function race(options: Partial<ServerOptions>) {
  const { gate, keys, a, b, s } = await twoSpaces(options);
  try {
    let aDone = false;
    let bDone = false;
    const big = call(s.url, 'POST', '/v1/memories', { key: a, body: { content: LARGE } }).then((r) => {
      aDone = true;
      return r;
    });
    await until(() => (gate.blocked ? true : undefined), 10_000, 'the large store to reach the embedder');
    const small = call(s.url, 'POST', '/v1/memories', { key: b, body: { content: 'Standup moved to 10:15.' } }).then(
      (r) => {
        bDone = true;
        return r;
      },
    );
    // Let B's request reach the embedder queue before the first release.
    await new Promise((ok) => setImmediate(ok));
    let released = 0;
    let aDoneWhenBDone = false;
    while (!bDone) {
      const before = gate.embedded;
      gate.release(1);
      released++;
      await until(() => (gate.embedded > before || bDone ? true : undefined), 10_000, 'a text to be embedded');
      await until(() => (bDone || gate.blocked ? true : undefined), 10_000, 'the embedder to wait again');
      if (released > 5000) throw new Error('the small store never finished');
    }
    aDoneWhenBDone = aDone;
    const textsOfA = gate.embedded;
    gate.release(1_000_000);
    const [rb, ra] = await Promise.all([small, big]);
    expect(rb.status).toBe(201);
    expect(ra.status).toBe(201);
    return { released, aDoneWhenBDone, totalA: ra.body.chunkCount as number, textsOfA };
  } finally {
    await s.close();
    keys.close();
  }
}

describe('fair embedding between spaces', () => {
  it('a small store in one space completes while another space embeds a very large memory', async () => {
    const fair = await race({ fairEmbedding: { sliceSize: 8, concurrency: 1 } });
    expect(fair.totalA).toBeGreaterThan(100);
    expect(fair.aDoneWhenBDone).toBe(false);
    // B waited for one slice of A per embedding call of its own (its duplicate check and its chunks, so at most
    // three slices of eight, plus its own texts), not for A's whole job.
    expect(fair.released).toBeLessThanOrEqual(3 * 8 + 4);
    expect(fair.released * 4).toBeLessThan(fair.totalA);
    // Without the fair queue the same store waits for every chunk of A (the 46 s).
    const unfair = await race({ fairEmbedding: false });
    expect(unfair.aDoneWhenBDone).toBe(true);
    expect(unfair.released).toBeGreaterThan(unfair.totalA);
  }, 60_000);

  it('FairQueue serves lanes in turn', async () => {
    const q = new FairQueue(1);
    const order: string[] = [];
    let open: (() => void) | undefined;
    const first = q.run('a', () => new Promise<void>((ok) => (open = ok)));
    const rest = [
      ...['a1', 'a2', 'a3'].map((n) => q.run('a', async () => void order.push(n))),
      ...['b1', 'b2'].map((n) => q.run('b', async () => void order.push(n))),
      q.run('c', async () => void order.push('c1')),
    ];
    expect(q.waiting).toBe(6);
    await until(() => (open ? true : undefined), 1000, 'the first task to start');
    open?.();
    await Promise.all([first, ...rest]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });
});

describe('rate cost in proportion to the work', () => {
  const limited = (burst: number) => testServer({ rateLimit: { ratePerSecond: 0.001, burst }, fairEmbedding: false });

  it('one MCP POST with 100 tools/call costs 100 tokens; more than 100 messages is refused', async () => {
    const s = await limited(150);
    try {
      const batch = (n: number, from = 0) =>
        JSON.stringify(
          Array.from({ length: n }, (_, i) =>
            toolCall(from + i, 'memory-store', { content: `Batch note ${from + i}.` }),
          ),
        );
      const first = await rawRequest(s.url, 'POST', '/mcp', { headers: MCP_HEADERS, body: batch(100) });
      expect(first.status).toBe(200);
      expect(first.body).toHaveLength(100);
      // 150 - 100 = 50 left: a batch of 51 is refused whole, one of 49 (plus one GET) fits.
      const over = await rawRequest(s.url, 'POST', '/mcp', { headers: MCP_HEADERS, body: batch(51, 100) });
      expect([over.status, over.body.code]).toEqual([429, 'RATE_LIMITED']);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const fits = await rawRequest(s.url, 'POST', '/mcp', { headers: MCP_HEADERS, body: batch(49, 200) });
      expect(fits.status).toBe(200);
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(429);
    } finally {
      await s.close();
    }
    const t = await testServer({ rateLimit: false, fairEmbedding: false });
    try {
      const body = JSON.stringify(Array.from({ length: 101 }, (_, i) => toolCall(i, 'memory-get', { id: 'x' })));
      const r = await rawRequest(t.url, 'POST', '/mcp', { headers: MCP_HEADERS, body });
      expect([r.status, r.body.code]).toEqual([413, 'TOO_LARGE']);
      expect(r.body.message).toContain('at most 100');
      expect((await call(t.url, 'GET', '/v1/stats')).body.documents).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('an import pays one token per line, and more lines than a key may spend at once is a clear 413', async () => {
    const s = await limited(30);
    try {
      const lines = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => JSON.stringify({ content: `Imported ${tag} ${i}.` })).join('\n');
      const ok = await call(s.url, 'POST', '/v1/import', { raw: lines(20, 'first') });
      expect([ok.status, ok.body.imported]).toEqual([200, 20]);
      const again = await call(s.url, 'POST', '/v1/import', { raw: lines(15, 'second') });
      expect([again.status, again.body.code]).toEqual([429, 'RATE_LIMITED']);
      const huge = await call(s.url, 'POST', '/v1/import', { raw: lines(31, 'third') });
      expect([huge.status, huge.body.code]).toEqual([413, 'TOO_LARGE']);
      expect(huge.body.message).toContain('split it');
    } finally {
      await s.close();
    }
  });

  it('a large body pays per started 32 KiB', async () => {
    const s = await limited(10);
    try {
      // 200 KiB: 7 tokens.
      const big = await call(s.url, 'POST', '/v1/memories', { body: { content: LARGE.slice(0, 200 * 1024) } });
      expect(big.status).toBe(201);
      const next = await call(s.url, 'POST', '/v1/memories', { body: { content: LARGE.slice(0, 130 * 1024) } });
      expect([next.status, next.body.code]).toEqual([429, 'RATE_LIMITED']);
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
