/**
 * `GET /metrics`: Prometheus text format (version 0.0.4) of what this process served — requests and latency per
 * operation and outcome, tokens the operations reported, and the knowledge store's size per space seen — fed by the
 * operation table's observer (`observeOperations`). It is served only with the metrics key (`MEM_METRICS_KEY`, a
 * bearer token of its own: the counts cover every space, so no space's API key may read them).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { MemError, type Stack } from '@mem/core';
import type { OperationEvent, OperationObserver } from '@mem/operations';
import { HttpError } from './errors.js';

/** Latency bucket bounds in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Most spaces whose store size is reported (the first seen). */
const MAX_SPACES = 100;
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Series {
  count: number;
  sum: number;
  buckets: number[];
}

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class ServerMetrics {
  private readonly series = new Map<string, Series>();
  private readonly tokens = { input: 0, output: 0 };
  private readonly spaces = new Set<string>();

  /** The observer the server's table is wrapped with. */
  readonly observer: OperationObserver = { onOperation: (event) => this.record(event) };

  record(event: OperationEvent): void {
    const key = `${event.operation}\u0000${event.outcome}`;
    let s = this.series.get(key);
    if (!s) {
      s = { count: 0, sum: 0, buckets: BUCKETS.map(() => 0) };
      this.series.set(key, s);
    }
    const seconds = event.durationMs / 1000;
    s.count++;
    s.sum += seconds;
    for (const [i, b] of BUCKETS.entries()) if (seconds <= b) s.buckets[i]!++;
    if (event.usage) {
      this.tokens.input += event.usage.inputTokens;
      this.tokens.output += event.usage.outputTokens;
    }
    if (this.spaces.size < MAX_SPACES) this.spaces.add(event.space);
  }

  /** The exposition text, with the store size of each space seen read now. */
  async render(stack: Stack): Promise<string> {
    const out: string[] = [
      '# HELP mem_operation_requests_total Operations run, by operation and outcome.',
      '# TYPE mem_operation_requests_total counter',
    ];
    const sorted = [...this.series.entries()].sort(([a], [b]) => a.localeCompare(b));
    for (const [key, s] of sorted) {
      const [op, outcome] = key.split('\u0000') as [string, string];
      out.push(`mem_operation_requests_total{operation="${label(op)}",outcome="${outcome}"} ${s.count}`);
    }
    out.push(
      '# HELP mem_operation_duration_seconds Operation latency.',
      '# TYPE mem_operation_duration_seconds histogram',
    );
    for (const [key, s] of sorted) {
      const [op, outcome] = key.split('\u0000') as [string, string];
      const l = `operation="${label(op)}",outcome="${outcome}"`;
      for (const [i, b] of BUCKETS.entries())
        out.push(`mem_operation_duration_seconds_bucket{${l},le="${b}"} ${s.buckets[i]}`);
      out.push(`mem_operation_duration_seconds_bucket{${l},le="+Inf"} ${s.count}`);
      out.push(`mem_operation_duration_seconds_sum{${l}} ${s.sum}`);
      out.push(`mem_operation_duration_seconds_count{${l}} ${s.count}`);
    }
    out.push(
      '# HELP mem_tokens_total Model tokens the operations reported, by type.',
      '# TYPE mem_tokens_total counter',
      `mem_tokens_total{type="input"} ${this.tokens.input}`,
      `mem_tokens_total{type="output"} ${this.tokens.output}`,
      '# HELP mem_store_memories Memories in the knowledge store, per space served since start.',
      '# TYPE mem_store_memories gauge',
    );
    const sizes = await Promise.all(
      [...this.spaces].sort().map(async (space) => {
        const stats = await stack.knowledgeStore.stats(space).catch(() => null);
        return stats ? `mem_store_memories{space="${label(space)}"} ${stats.documents}` : null;
      }),
    );
    out.push(...sizes.filter((l): l is string => l !== null));
    return `${out.join('\n')}\n`;
  }
}

/** A metrics key must be long enough not to be guessed. */
export function checkMetricsKey(key: string | undefined): void {
  if (key !== undefined && key.length < 24)
    throw new MemError(
      'INVALID_INPUT',
      `The metrics key (MEM_METRICS_KEY) must be at least 24 characters (got ${key.length}); e.g. openssl rand -hex 24.`,
    );
}

const digest = (v: string) => createHash('sha256').update(v).digest();

/** 403 while no metrics key is set, 401 without the right bearer key. */
export function requireMetricsKey(req: IncomingMessage, key: string | undefined): void {
  if (key === undefined)
    throw new HttpError(
      403,
      'FORBIDDEN',
      'Metrics are off: start the server with MEM_METRICS_KEY set (24+ characters) and send it as "Authorization: Bearer <key>".',
    );
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m || !timingSafeEqual(digest(m[1]!), digest(key)))
    throw new HttpError(401, 'UNAUTHORIZED', 'GET /metrics needs "Authorization: Bearer <MEM_METRICS_KEY>".', {
      'www-authenticate': 'Bearer realm="mem-metrics"',
    });
}
