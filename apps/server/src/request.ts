/**
 * One HTTP request as the server sees it: its state (id, caller, operation — what the log line records) and its
 * body, read within a byte limit, decoded as strict UTF-8 and parsed as JSON.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Principal } from '@mem/core';
import { HttpError } from './errors.js';

export interface RequestState {
  requestId: string;
  started: number;
  principal: Principal | null;
  keyId: string | null;
  operation: string | null;
  tool: string | null;
  /** The route template of the operation that served the request (what the log records, never the raw path). */
  route: string | null;
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A new request's state: the client's `x-request-id` when it is a sane one, else a fresh UUID. */
export function newRequestState(req: IncomingMessage): RequestState {
  const incoming = req.headers['x-request-id'];
  return {
    requestId: typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID(),
    started: performance.now(),
    principal: null,
    keyId: null,
    operation: null,
    tool: null,
    route: null,
  };
}

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; bytes that are not UTF-8 are refused instead of silently replaced. */
export function utf8Text(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw new HttpError(
      400,
      'INVALID_INPUT',
      'The request body is not valid UTF-8: encode the text as UTF-8 (JSON bodies must be UTF-8).',
    );
  }
}

/** The body text parsed as JSON (any value); 400 when it is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'INVALID_INPUT', `The request body is not valid JSON: ${(e as Error).message}.`);
  }
}

/** The body text as a JSON object, or undefined when it is empty; 400 for anything else. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  const value = parseJsonText(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'INVALID_INPUT', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Read the body, at most `bodyLimit` bytes. Over the limit: drain what the client sends, then 413. */
export async function readBody(req: IncomingMessage, bodyLimit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  const tooLarge = () =>
    new HttpError(
      413,
      'TOO_LARGE',
      `The request body is over the limit of ${bodyLimit} bytes. Send less (split the content into several memories or import lines), or start the server with a larger --body-limit.`,
    );
  const chunks: Buffer[] = [];
  let size = 0;
  let over = Number.isFinite(declared) && declared > bodyLimit;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > bodyLimit) over = true;
    if (over) {
      chunks.length = 0;
      // A client that keeps sending far past the limit is cut off instead of drained.
      if (size > bodyLimit * 4 + 1024 * 1024) {
        req.destroy();
        throw tooLarge();
      }
      continue;
    }
    chunks.push(chunk as Buffer);
  }
  if (over) throw tooLarge();
  return Buffer.concat(chunks);
}

/**
 * After a refusal, the unread body is drained when it is declared and within the limit (the connection stays
 * usable); otherwise the connection closes after the answer instead of reading whatever the client sends.
 */
export function discardBody(req: IncomingMessage, res: ServerResponse, bodyLimit: number): void {
  if (req.readableEnded || req.destroyed) return;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (!(Number.isFinite(declared) && declared <= bodyLimit) && !res.headersSent) res.setHeader('connection', 'close');
  req.resume();
}
