/** `mem bench attack` replicas: three `mem serve` on one PostgreSQL, writes spread over them, a key revoked through the CLI. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { rawRequest, type ServeProcess, startServeProcess } from '@mem/testkit/attack';
import { type AttackOptions, type Stat, stat } from './attack-common.js';
import { memDevBin } from './mem-command.js';
import { round } from './stats.js';

export interface ReplicaRun {
  writes: Stat & { acknowledged: number; failed: number; perSecond: number };
  /** Per replica: acknowledged writes found exactly once in its export. */
  foundOnce: number[];
  revokedRefusedByAllMs: number;
}

const memCommand = (args: string[]) => ({ command: process.execPath, args: [memDevBin(), ...args] });

export async function replicas(opts: AttackOptions, url: string): Promise<ReplicaRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-replicas-'));
  const env = { ...process.env, MEM_EMBEDDER: 'hashing', MEM_STORE: 'postgres', MEM_DB: url, MEM_WORKSPACE: dir };
  const mem = async (args: string[]) =>
    (await promisify(execFile)(process.execPath, [memDevBin(), ...args], { env })).stdout;
  const createKey = async (space: string, agent: string) =>
    JSON.parse(await mem(['keys', 'create', '--space', space, '--agent', agent, '--role', 'worker', '--json'])) as {
      key: string;
      id: string;
    };
  const servers: ServeProcess[] = [];
  try {
    const run = Date.now().toString(36);
    const writer = await createKey(`bench-${run}`, 'writer');
    for (let i = 0; i < 3; i++)
      servers.push(
        await startServeProcess(
          memCommand(['serve', '--port', '0', '--json', '--rate-limit', '100000', '--rate-burst', '100000']),
          env,
        ),
      );
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    const acked: string[] = [];
    const storeMs: number[] = [];
    let failed = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < opts.writes; i = next++) {
          const content = `replica bench note ${i} of run ${run}: deploy window ${i * 7}`;
          const t = performance.now();
          try {
            const r = await rawRequest(servers[i % 3]!.url, 'POST', '/v1/memories', {
              headers: { ...auth(writer.key), 'content-type': 'application/json' },
              body: JSON.stringify({ content }),
              timeoutMs: 60_000,
            });
            if (r.status === 201) {
              acked.push(content);
              storeMs.push(performance.now() - t);
            } else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const foundOnce: number[] = [];
    for (const r of servers) {
      const exported = await rawRequest(r.url, 'GET', '/v1/export', { headers: auth(writer.key), timeoutMs: 120_000 });
      const counts = new Map<string, number>();
      for (const line of exported.text.split('\n')) {
        if (!line.trim()) continue;
        const content = (JSON.parse(line) as { content?: string }).content;
        if (content) counts.set(content, (counts.get(content) ?? 0) + 1);
      }
      foundOnce.push(acked.filter((c) => counts.get(c) === 1).length);
    }
    const temp = await createKey(`bench-${run}`, 'temp');
    const whoami = (r: ServeProcess) => rawRequest(r.url, 'GET', '/v1/whoami', { headers: auth(temp.key) });
    for (const r of servers)
      if ((await whoami(r)).status !== 200) throw new Error('a fresh key was refused by a replica');
    await mem(['keys', 'revoke', temp.id]);
    const revokedAt = performance.now();
    const refused = new Set<number>();
    while (refused.size < servers.length) {
      if (performance.now() - revokedAt > 60_000) throw new Error('a revoked key was still accepted after 60 s');
      for (const [i, r] of servers.entries()) if (!refused.has(i) && (await whoami(r)).status === 401) refused.add(i);
    }
    return {
      writes: {
        ...stat(storeMs),
        acknowledged: acked.length,
        failed,
        perSecond: round(acked.length / seconds, 1),
      },
      foundOnce,
      revokedRefusedByAllMs: round(performance.now() - revokedAt, 0),
    };
  } finally {
    await Promise.all(servers.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
