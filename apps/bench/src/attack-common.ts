import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { type ServerOptions, silentLogger, startServer } from '@mem/server';
import { percentile, round } from './stats.js';

/** The sizes of a run, from the flags (attack.ts checks them). */
export interface AttackOptions {
  durationS: number;
  floodConnections: number;
  slow: number;
  idle: number;
  windowS: number;
  headersTimeoutMs: number;
  large: number;
  small: number;
  intervalMs: number;
  embedMs: number;
  writes: number;
}

export const log = (s: string) => process.stderr.write(`${s}\n`);
export const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));
export const stat = (xs: number[]) => ({
  n: xs.length,
  p50: xs.length ? round(percentile(xs, 50), 1) : null,
  p95: xs.length ? round(percentile(xs, 95), 1) : null,
  max: xs.length ? round(Math.max(...xs), 1) : null,
});
export type Stat = ReturnType<typeof stat>;
export const main: Principal = { space: 'default', agentId: 'main', role: 'worker' };

export function server(options: Partial<ServerOptions>) {
  return startServer({
    stack: createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() }),
    port: 0,
    defaultPrincipal: main,
    logger: silentLogger,
    closeStack: true,
    ...options,
  });
}
