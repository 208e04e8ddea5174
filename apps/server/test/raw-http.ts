import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/**
 * One HTTP request with node:http, for what fetch will not do: a forged Host header (DNS rebinding), a browser's
 * Origin, and a chosen local address (another client on 127.0.0.2).
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawAnswer> {
  const url = new URL(path, base);
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: {
          ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          ok({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      },
    );
    req.on('error', fail);
    req.end(options.body);
  });
}

/** A JSON-RPC tools/call message for the stateless MCP endpoint. */
export function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
