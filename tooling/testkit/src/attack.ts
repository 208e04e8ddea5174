/**
 * The attacker's tools (`@mem/testkit/attack`), shared by the server's attack tests (apps/server/test: auth-attack,
 * fairness, exposure, replicas) and `mem bench attack` (apps/bench/src/attack.ts): raw HTTP requests from a chosen
 * local address, slow-loris and idle sockets, a wrong secret for a known key id, a serial embedder whose pace the
 * caller sets, a memory of many chunks, and a `mem serve` child process. Nothing here imports vitest, so the bench
 * and its worker threads load it without the suites.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Embedder } from '@mem/core/adapter';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/**
 * One HTTP request with node:http, for what fetch will not do: a forged Host header (DNS rebinding), a browser's
 * Origin, and a chosen local address (another client on 127.0.0.2). `timeoutMs` fails the request when no answer
 * came in time.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; localAddress?: string; timeoutMs?: number } = {},
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
        ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
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
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', fail);
    req.end(options.body);
  });
}

/** The key with its secret replaced (same id, same length): a known key id with a wrong secret. */
export const wrongSecret = (key: string): string => `${key.slice(0, -43)}${'A'.repeat(43)}`;

/** A TCP connection to the server that reads (and drops) whatever the server sends, so that its close is seen. */
export function openSocket(base: string): Promise<Socket> {
  const url = new URL(base);
  return new Promise((ok, fail) => {
    const socket = connect(Number(url.port), url.hostname, () => ok(socket));
    socket.resume();
    socket.on('error', () => {});
    socket.once('error', fail);
  });
}

/** Resolve with how long the server took to close the socket (or fail after `ms`). */
export function closedWithin(socket: Socket, ms: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((ok, fail) => {
    if (socket.destroyed) return ok(0);
    const timer = setTimeout(() => fail(new Error(`socket still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      ok(performance.now() - t0);
    });
  });
}

/**
 * A slow-loris client: a request line and headers that never end, one byte every `dripMs`. `answer` collects what
 * the server sent back (a 408 when its headers timeout cuts the client off); `stop` ends the drip.
 */
export async function slowLoris(
  base: string,
  dripMs = 50,
): Promise<{ socket: Socket; answer: () => string; stop: () => void }> {
  const socket = await openSocket(base);
  let answer = '';
  socket.on('data', (c) => (answer += c));
  socket.write(`GET /v1/stats HTTP/1.1\r\nHost: ${new URL(base).hostname}\r\nX-Slow: `);
  const drip = setInterval(() => socket.writable && socket.write('a'), dripMs);
  socket.once('close', () => clearInterval(drip));
  return { socket, answer: () => answer, stop: () => clearInterval(drip) };
}

/**
 * A serial embedder (like a local model on one core): texts are embedded one at a time by `inner`, each after
 * `before()` resolves — a token released by a test, or a fixed delay in the bench.
 */
export function serialEmbedder(inner: Embedder, before: () => Promise<void>): Embedder & { readonly embedded: number } {
  let chain: Promise<unknown> = Promise.resolve();
  let embedded = 0;
  return {
    id: inner.id,
    dimension: inner.dimension,
    get embedded() {
      return embedded;
    },
    embed(texts) {
      const run = chain.then(async () => {
        const out: Float32Array[] = [];
        for (const text of texts) {
          await before();
          out.push(...(await inner.embed([text])));
          embedded++;
        }
        return out;
      });
      chain = run.catch(() => undefined);
      return run;
    },
  };
}

/** A memory of `paragraphs` paragraphs of ~1 KB (many chunks to embed); `tag` keeps two of them apart. */
export const largeMemory = (paragraphs = 200, tag = ''): string =>
  Array.from({ length: paragraphs }, (_, i) =>
    `Paragraph ${i}${tag}: the quarterly infrastructure review covered region ${i % 17}, capacity plan ${i}, and the on-call rota for team ${i % 9}. `.repeat(
      8,
    ),
  ).join('\n\n');

export interface ServeProcess {
  url: string;
  auth: string;
  child: ChildProcess;
  /** SIGTERM to the process group, resolved once the process exited. */
  stop(): Promise<void>;
}

/**
 * Start `mem serve --port 0 --json …` (given as the command and arguments to spawn) in its own process group and
 * resolve with the address it prints, or fail with its stderr when it exits first or after `timeoutMs`.
 */
export function startServeProcess(
  proc: { command: string; args: string[] },
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<ServeProcess> {
  const child = spawn(proc.command, proc.args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
  };
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      stop().catch(() => {});
      fail(new Error(`mem serve did not print its address within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const onData = () => {
      const line = stdout.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      const info = JSON.parse(line) as { url: string; auth: string };
      ok({ url: info.url, auth: info.auth, child, stop });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`mem serve exited (${code}) before it listened: ${stderr}`));
    });
  });
}
