/** Answers: JSON with the server's headers, errors classified (a gone client is no server error), NDJSON streams. */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { classify } from './errors.js';
import type { ServerLogger } from './log.js';
import { JSON_HEADERS, type RequestState } from './request.js';

export interface Responder {
  sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void;
  sendError(res: ServerResponse, state: RequestState, error: unknown): void;
  streamLines(res: ServerResponse, rows: AsyncIterable<unknown>, signal: AbortSignal): Promise<void>;
}

/** `shuttingDown` tells whether answers should close their connection (the server is draining). */
export function createResponder(logger: ServerLogger, shuttingDown: () => boolean): Responder {
  const closeHeader = (): Record<string, string> => (shuttingDown() ? { connection: 'close' } : {});

  function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const body = JSON.stringify(value);
    res.writeHead(status, {
      ...JSON_HEADERS,
      'content-length': String(Buffer.byteLength(body)),
      ...closeHeader(),
      ...headers,
    });
    res.end(body);
  }

  function sendError(res: ServerResponse, state: RequestState, error: unknown): void {
    const c = classify(error, state.requestId);
    if (c.unexpected && clientGone(res, error)) {
      // The client went away (closed the tab, timed out, reset): not a server error, no stack.
      logger.log('debug', 'client aborted', {
        requestId: state.requestId,
        operation: state.operation,
        reason: (error as { code?: string } | null)?.code ?? 'aborted',
      });
      res.destroy();
      return;
    }
    if (c.unexpected) {
      logger.log('error', 'request failed', {
        requestId: state.requestId,
        operation: state.operation,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, c.status, c.body, c.headers);
  }

  async function streamLines(res: ServerResponse, rows: AsyncIterable<unknown>, signal: AbortSignal): Promise<void> {
    res.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      ...closeHeader(),
    });
    for await (const row of rows) {
      if (signal.aborted || res.destroyed) return;
      if (!res.write(`${JSON.stringify(row)}\n`)) {
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
    }
    res.end();
  }

  return { sendJson, sendError, streamLines };
}

function clientGone(res: ServerResponse, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE') return true;
  if (error instanceof Error && error.message === 'aborted') return true;
  // A request whose body was read in full is destroyed too (autoDestroy): only an incomplete one means a gone client.
  return res.destroyed || (res.req.destroyed && !res.req.complete);
}
