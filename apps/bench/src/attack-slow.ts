import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUTS } from '@mem/server';
import { closedWithin, openSocket, rawRequest, slowLoris } from '@mem/testkit/attack';
import { type AttackOptions, type Stat, server, sleep, stat } from './attack-common.js';

export interface SlowRun {
  variant: 'timeouts on' | 'timeouts off';
  settings: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number | null };
  loris: Stat & { opened: number; openAtEnd: number; answered408: number };
  idle: Stat & { opened: number; openAtEnd: number; refusedAtOnce: number };
  probe: Stat & { failed: number };
}

export async function slowClients(opts: AttackOptions, timeouts: boolean): Promise<SlowRun> {
  const settings = timeouts
    ? {
        headersTimeoutMs: opts.headersTimeoutMs,
        requestTimeoutMs: Math.max(opts.headersTimeoutMs, DEFAULT_TIMEOUTS.requestMs),
        maxConnections: DEFAULT_MAX_CONNECTIONS,
      }
    : // Node's own defaults, what the server ran with before issue 15: no connection cap.
      { headersTimeoutMs: 60_000, requestTimeoutMs: 300_000, maxConnections: null };
  const s = await server({
    open: true,
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxConnections: settings.maxConnections ?? 1_000_000,
  });
  const windowMs = opts.windowS * 1000;
  const sockets: Socket[] = [];
  try {
    let probing = true;
    const probeMs: number[] = [];
    let probeFailed = 0;
    const prober = (async () => {
      while (probing) {
        const t = performance.now();
        try {
          const r = await rawRequest(s.url, 'GET', '/v1/stats', { timeoutMs: 5_000 });
          if (r.status === 200) probeMs.push(performance.now() - t);
          else probeFailed++;
        } catch {
          probeFailed++;
        }
        await sleep(250);
      }
    })();
    const lorises = [];
    for (let i = 0; i < opts.slow; i++) lorises.push(await slowLoris(s.url, 200));
    const idles: Socket[] = [];
    for (let i = 0; i < opts.idle; i++) {
      try {
        idles.push(await openSocket(s.url));
      } catch {
        // refused before connecting: counted as refused at once below (not in `idles`)
      }
    }
    sockets.push(...lorises.map((l) => l.socket), ...idles);
    const closeTimes = async (list: Socket[]) =>
      Promise.all(list.map((socket) => closedWithin(socket, windowMs).catch(() => null)));
    const [lorisMs, idleMs] = await Promise.all([closeTimes(lorises.map((l) => l.socket)), closeTimes(idles)]);
    probing = false;
    await prober;
    for (const l of lorises) l.stop();
    const closed = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
    // Dropped by the connection cap: closed at once, well before any timeout could cut them off.
    const atOnce = Math.min(1000, settings.headersTimeoutMs / 2);
    return {
      variant: timeouts ? 'timeouts on' : 'timeouts off',
      settings,
      loris: {
        ...stat(closed(lorisMs)),
        opened: lorises.length,
        openAtEnd: lorisMs.filter((x) => x === null).length,
        answered408: lorises.filter((l) => /^HTTP\/1\.1 408 /.test(l.answer())).length,
      },
      idle: {
        // The close times of the sockets the server accepted (the cap's refusals are counted apart).
        ...stat(closed(idleMs).filter((x) => x >= atOnce)),
        opened: opts.idle,
        openAtEnd: idleMs.filter((x) => x === null).length,
        refusedAtOnce: opts.idle - idles.length + closed(idleMs).filter((x) => x < atOnce).length,
      },
      probe: { ...stat(probeMs), failed: probeFailed },
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await s.close();
  }
}
