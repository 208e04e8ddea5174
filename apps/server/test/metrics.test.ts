import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, MemError } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { readServeSettings } from '../src/settings.js';
import { call, testServer } from './helpers.js';

const KEY = 'metrics-key-0123456789abcdef';
const dirs: string[] = [];
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function sqliteServer(metricsKey?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-metrics-'));
  dirs.push(dir);
  const stack = createStack({
    stores: createSqliteStores({ path: join(dir, 'mem.db') }),
    embedder: createHashingEmbedder(),
  });
  const server = await testServer({ stack, ...(metricsKey ? { metricsKey } : {}) });
  servers.push(server);
  return server;
}

const value = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

describe('GET /metrics', () => {
  it('needs the metrics key: 401 without it or with another, an API key does not do', async () => {
    const server = await sqliteServer(KEY);
    const none = await call(server.url, 'GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    expect(none.headers.get('www-authenticate')).toContain('mem-metrics');
    expect((await call(server.url, 'GET', '/metrics', { key: `${KEY}x` })).status).toBe(401);
    expect((await call(server.url, 'GET', '/metrics', { key: 'mem_abc_def' })).status).toBe(401);
  });

  it('is 403 saying how to turn it on while no metrics key is set', async () => {
    const server = await sqliteServer();
    const r = await call(server.url, 'GET', '/metrics', { key: KEY });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('MEM_METRICS_KEY');
  });

  it('serves Prometheus text whose counters rise after requests, with latency, tokens and store sizes', async () => {
    const server = await sqliteServer(KEY);
    const before = await call(server.url, 'GET', '/metrics', { key: KEY });
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const stored = 'mem_operation_requests_total{operation="memory-store",outcome="ok"}';
    expect(value(before.text, stored)).toBe(0);
    for (const content of ['Invoices retry three times.', 'Staging resets on Mondays.']) {
      expect((await call(server.url, 'POST', '/v1/memories', { body: { content } })).status).toBe(201);
    }
    expect((await call(server.url, 'GET', '/v1/memories/01jq0000000000000000000000')).status).toBe(404);
    const after = (await call(server.url, 'GET', '/metrics', { key: KEY })).text;
    expect(value(after, stored)).toBe(2);
    expect(value(after, 'mem_operation_requests_total{operation="memory-get",outcome="error"}')).toBe(1);
    const l = 'operation="memory-store",outcome="ok"';
    expect(value(after, `mem_operation_duration_seconds_count{${l}}`)).toBe(2);
    expect(value(after, `mem_operation_duration_seconds_bucket{${l},le="+Inf"}`)).toBe(2);
    expect(value(after, `mem_operation_duration_seconds_sum{${l}}`)).toBeGreaterThan(0);
    expect(after).toContain('# TYPE mem_operation_duration_seconds histogram');
    expect(after).toMatch(/^mem_tokens_total\{type="input"\} \d+$/m);
    expect(value(after, 'mem_store_memories{space="default"}')).toBe(2);
    // No memory text in the metrics.
    expect(after).not.toContain('Invoices');
  });

  it('refuses a short metrics key at start, and reads MEM_METRICS_KEY', async () => {
    const error = await testServer({ metricsKey: 'short' }).catch((e: unknown) => e);
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect(readServeSettings({ MEM_METRICS_KEY: KEY }).metricsKey).toBe(KEY);
    expect(readServeSettings({}).metricsKey).toBeUndefined();
  });
});
