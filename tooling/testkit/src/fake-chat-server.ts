/** An OpenAI-compatible chat server on 127.0.0.1 for the tests: reads the body, routes, tracks sockets, closes cleanly. */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ChatRequest {
  body: any;
  raw: string;
  headers: IncomingHttpHeaders;
}

export type Send = (status: number, payload: unknown) => void;

/**
 * Start the server; `handle` answers POST `path` (default /v1/chat/completions; e.g. /v1/rerank for a rerank
 * service). It may also never answer.
 */
export async function startFakeChatServer(
  handle: (request: ChatRequest, send: Send) => unknown,
  { path = '/v1/chat/completions' }: { path?: string } = {},
): Promise<{ baseURL: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send: Send = (status, payload) => {
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== 'POST' || req.url !== path) {
      return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    await handle({ body: JSON.parse(raw), raw, headers: req.headers }, send);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
