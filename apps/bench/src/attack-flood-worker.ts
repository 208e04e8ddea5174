/**
 * The flood of `mem bench attack` in a worker thread (its own event loop, so the attack loop does not share the
 * server's): `connections` loops send `key` with a wrong secret from 127.0.0.1 until told to stop, then post the
 * answers' statuses and the failures.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rawRequest, wrongSecret } from '@mem/testkit/attack';

const { url, key, connections } = workerData as { url: string; key: string; connections: number };
let running = true;
const statuses: Record<string, number> = {};
let failed = 0;
parentPort!.once('message', () => {
  running = false;
});
const loops = Array.from({ length: connections }, async () => {
  while (running) {
    try {
      const r = await rawRequest(url, 'GET', '/v1/stats', {
        headers: { authorization: `Bearer ${wrongSecret(key)}` },
        localAddress: '127.0.0.1',
        timeoutMs: 120_000,
      });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    } catch {
      failed++;
    }
  }
});
parentPort!.postMessage({ started: true });
await Promise.all(loops);
parentPort!.postMessage({ statuses, failed });
