/**
 * The connection cap of the HTTP server. At the cap a new connection takes the place of the oldest one that is not
 * serving a request (an idle keep-alive socket, or one still sending its headers: what slow and idle clients hold);
 * only when every connection is serving a request is the new one refused. So sockets opened and left idle cannot
 * shut others out.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerLogger } from './log.js';

export function capConnections(server: Server, cap: number, logger: ServerLogger): void {
  const open = new Map<Socket, { busy: number }>(); // insertion order = age
  server.on('connection', (socket: Socket) => {
    open.set(socket, { busy: 0 });
    socket.once('close', () => open.delete(socket));
    if (open.size <= cap) return;
    let victim: Socket | null = null;
    for (const [s, state] of open) {
      if (s !== socket && state.busy === 0) {
        victim = s;
        break;
      }
    }
    const drop = victim ?? socket;
    if (victim) {
      logger.log('debug', 'connection closed at the connection cap: the oldest idle one made room', {
        client: victim.remoteAddress ?? null,
        maxConnections: cap,
      });
    } else {
      logger.log('warn', 'connection refused: at the connection cap', {
        client: socket.remoteAddress ?? null,
        maxConnections: cap,
      });
    }
    open.delete(drop);
    drop.destroy();
  });
  server.on('request', (req, res) => {
    const state = open.get(req.socket);
    if (!state) return;
    state.busy += 1;
    res.once('close', () => {
      state.busy -= 1;
    });
  });
}
