import { performance } from 'node:perf_hooks';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack } from '@mem/core';
import { KeyStore } from '@mem/server';
import { largeMemory, rawRequest, serialEmbedder } from '@mem/testkit/attack';
import { type AttackOptions, type Stat, server, sleep, stat } from './attack-common.js';

export interface FairnessRun {
  variant: 'fair queue' | 'no fair queue';
  small: Stat & { failed: number };
  large: Stat & { stored: number; chunks: number };
}

export async function fairness(opts: AttackOptions, fair: boolean): Promise<FairnessRun> {
  const keys = KeyStore.open(':memory:');
  const a = (await keys.create({ space: 'tenant-a', agentId: 'bulk', role: 'worker' })).key;
  const b = (await keys.create({ space: 'tenant-b', agentId: 'small', role: 'worker' })).key;
  const embedder = serialEmbedder(createHashingEmbedder(), () => sleep(opts.embedMs));
  const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder });
  const s = await server({
    stack,
    keys,
    rateLimit: false,
    bodyLimitBytes: 8 * 1024 * 1024,
    ...(fair ? {} : { fairEmbedding: false }),
  });
  const store = (key: string, content: string) =>
    rawRequest(s.url, 'POST', '/v1/memories', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
      timeoutMs: 600_000,
    });
  try {
    let bulkRunning = true;
    const largeMs: number[] = [];
    let chunks = 0;
    const bulk = (async () => {
      for (let i = 0; bulkRunning; i++) {
        const t = performance.now();
        const r = await store(a, largeMemory(opts.large, `.${i}`));
        if (r.status !== 201) throw new Error(`the large store failed: ${r.status} ${r.text}`);
        largeMs.push(performance.now() - t);
        chunks = r.body.chunkCount;
      }
    })();
    const deadline = performance.now() + 60_000;
    while (embedder.embedded === 0) {
      if (performance.now() > deadline) throw new Error('the large store never reached the embedder');
      await sleep(5);
    }
    const smallMs: number[] = [];
    let smallFailed = 0;
    const smalls: Promise<void>[] = [];
    for (let i = 0; i < opts.small; i++) {
      const t = performance.now();
      smalls.push(
        store(b, `Standup moved to 10:${String(i % 60).padStart(2, '0')} on day ${i}.`).then(
          (r) => void (r.status === 201 ? smallMs.push(performance.now() - t) : smallFailed++),
          () => void smallFailed++,
        ),
      );
      await sleep(opts.intervalMs);
    }
    await Promise.all(smalls);
    bulkRunning = false;
    await bulk;
    return {
      variant: fair ? 'fair queue' : 'no fair queue',
      small: { ...stat(smallMs), failed: smallFailed },
      large: { ...stat(largeMs), stored: largeMs.length, chunks },
    };
  } finally {
    await s.close();
    keys.close();
  }
}
