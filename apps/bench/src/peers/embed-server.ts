/**
 * An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 that serves the bench's own embedder, so that a peer
 * which only speaks to an embedding API (mem0) embeds with exactly the vectors the mem stacks use in the same run.
 * Any other path (chat completions…) answers 400: the peers run without an LLM, and a call would be a bug.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '@mem/core/adapter';

export interface EmbeddingServerStats {
  requests: number;
  texts: number;
  /** Milliseconds spent inside the embedder (not in HTTP or JSON). */
  computeMs: number;
  /** Requests to any path but /v1/embeddings (an LLM call would land here). */
  otherCalls: number;
}

export interface EmbeddingServer {
  /** Base URL for an OpenAI client, e.g. `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  stats: EmbeddingServerStats;
  /** While true, answers with zero vectors without calling the embedder: the cost of the HTTP hop alone. */
  noop: boolean;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startEmbeddingServer(embedder: Embedder): Promise<EmbeddingServer> {
  const stats: EmbeddingServerStats = { requests: 0, texts: 0, computeMs: 0, otherCalls: 0 };
  const state = { noop: false };
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/embeddings') {
        stats.otherCalls++;
        await readBody(req);
        send(res, 400, {
          error: { message: `the bench serves embeddings only (${req.method} ${path})`, type: 'bench' },
        });
        return;
      }
      try {
        const body = JSON.parse(await readBody(req)) as { input: unknown; model?: string; encoding_format?: string };
        const input = typeof body.input === 'string' ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.every((t) => typeof t === 'string')) {
          send(res, 400, { error: { message: 'input must be a string or a list of strings', type: 'bench' } });
          return;
        }
        stats.requests++;
        stats.texts += input.length;
        let vectors: Float32Array[];
        if (state.noop) vectors = input.map(() => new Float32Array(embedder.dimension));
        else {
          const t0 = performance.now();
          vectors = await embedder.embed(input as string[]);
          stats.computeMs += performance.now() - t0;
        }
        const base64 = body.encoding_format === 'base64';
        send(res, 200, {
          object: 'list',
          model: body.model ?? embedder.id,
          data: vectors.map((v, index) => ({
            object: 'embedding',
            index,
            embedding: base64 ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : Array.from(v),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      } catch (error) {
        send(res, 500, { error: { message: (error as Error).message, type: 'bench' } });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    stats,
    get noop() {
      return state.noop;
    },
    set noop(v: boolean) {
      state.noop = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
