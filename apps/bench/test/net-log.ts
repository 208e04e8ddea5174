/**
 * Preloaded into a bench process by test/qa.test.ts (`--import ./test/net-log.ts`): records every outgoing TCP
 * connection attempt (the address and port) and every host name looked up, one line each, to the file named by
 * MEM_BENCH_NET_LOG. It observes through Node's `net.client.socket` diagnostics channel and changes nothing.
 */

import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import type { Socket } from 'node:net';

const file = process.env.MEM_BENCH_NET_LOG;
if (file) {
  subscribe('net.client.socket', (message) => {
    const socket = (message as { socket: Socket }).socket;
    socket.on('connectionAttempt', (ip: string, port: number) => appendFileSync(file, `connect ${ip} ${port}\n`));
    socket.on('lookup', (_error: Error | null, _address: string, _family: unknown, host: string) =>
      appendFileSync(file, `lookup ${host} 0\n`),
    );
  });
}
