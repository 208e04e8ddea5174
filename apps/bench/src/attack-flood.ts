import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { KeyStore } from '@mem/server';
import { rawRequest } from '@mem/testkit/attack';
import { type AttackOptions, type Stat, server, stat } from './attack-common.js';
import { round } from './stats.js';

export interface FloodRun {
  variant: 'limiter on' | 'limiter off';
  /** The good client's requests with its key already verified (cached), and with a key used for the first time. */
  good: Stat & { perSecond: number; failed: number };
  firstUse: Stat & { failed: number };
  flood: { perSecond: number; statuses: Record<string, number>; failed: number };
}

/** Start the flood in a worker thread; `stop` ends it and resolves with what it counted. */
async function startFlood(opts: AttackOptions, url: string, key: string) {
  const worker = new Worker(new URL('./attack-flood-worker.ts', import.meta.url), {
    workerData: { url, key, connections: opts.floodConnections },
  });
  const messages: { started?: boolean; statuses?: Record<string, number>; failed?: number }[] = [];
  let wake: (() => void) | undefined;
  worker.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const errored = new Promise<never>((_, fail) => worker.once('error', fail));
  const next = () =>
    Promise.race([
      errored,
      new Promise<(typeof messages)[number]>((ok) => {
        const take = () => (messages.length ? ok(messages.shift()!) : (wake = take));
        take();
      }),
    ]);
  await next();
  return {
    async stop() {
      worker.postMessage('stop');
      const done = await next();
      await worker.terminate();
      return { statuses: done.statuses ?? {}, failed: done.failed ?? 0 };
    },
  };
}

export async function flood(opts: AttackOptions, limiter: boolean): Promise<FloodRun> {
  const keys = KeyStore.open(':memory:');
  const target = (await keys.create({ space: 'acme', agentId: 'lead', role: 'lead' })).key;
  const good = (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key;
  // Keys the good client uses once each during the flood: their first check needs scrypt, as the flood's do.
  const fresh: string[] = [];
  for (let i = 0; i < 20; i++)
    fresh.push((await keys.create({ space: 'acme', agentId: `new-${i}`, role: 'worker' })).key);
  const s = await server({ keys, rateLimit: false, ...(limiter ? {} : { authFailures: false }) });
  const stats = (key: string) =>
    rawRequest(s.url, 'GET', '/v1/stats', {
      headers: { authorization: `Bearer ${key}` },
      localAddress: '127.0.0.2',
      timeoutMs: 120_000,
    });
  try {
    if ((await stats(good)).status !== 200) throw new Error('the good key was refused before the flood');
    const attack = await startFlood(opts, s.url, target);
    const goodMs: number[] = [];
    const firstMs: number[] = [];
    let goodFailed = 0;
    let firstFailed = 0;
    const t0 = performance.now();
    const end = t0 + opts.durationS * 1000;
    // Two good clients, each one request after another: one with its verified (cached) key, one with a key it never
    // used each time (while any is left). A request still waiting at the end counts when it answers.
    const client = async (next: () => string | undefined, ms: number[], onFail: () => void) => {
      for (let key = next(); key !== undefined && performance.now() < end; key = next()) {
        const t = performance.now();
        try {
          const r = await stats(key);
          if (r.status === 200) ms.push(performance.now() - t);
          else onFail();
        } catch {
          onFail();
        }
      }
    };
    await Promise.all([
      client(
        () => good,
        goodMs,
        () => void goodFailed++,
      ),
      client(
        () => fresh.pop(),
        firstMs,
        () => void firstFailed++,
      ),
    ]);
    const seconds = (performance.now() - t0) / 1000;
    const { statuses, failed } = await attack.stop();
    const floodTotal = Object.values(statuses).reduce((x, y) => x + y, 0);
    return {
      variant: limiter ? 'limiter on' : 'limiter off',
      good: { ...stat(goodMs), perSecond: round(goodMs.length / seconds, 1), failed: goodFailed },
      firstUse: { ...stat(firstMs), failed: firstFailed },
      flood: { perSecond: round(floodTotal / seconds, 1), statuses, failed },
    };
  } finally {
    await s.close();
    keys.close();
  }
}
