/** One `/v1` request: authenticate, pay, read and check the body and query, run the operation, answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseInput } from '@mem/core';
import type { Operation } from '@mem/operations';
import type { DoorContext } from './door-context.js';
import { inSpace } from './fair-queue.js';
import { requireContentType } from './guard.js';
import { parseJsonObject, type RequestState, readBody, utf8Text } from './request.js';
import { chargeRequest, workCost } from './request-cost.js';

async function readJsonObject(
  ctx: DoorContext,
  req: IncomingMessage,
  state: RequestState,
): Promise<Record<string, unknown> | undefined> {
  const raw = await readBody(req, ctx.bodyLimit);
  await chargeRequest(ctx.limiter, state, workCost(raw.length), 1);
  return parseJsonObject(utf8Text(raw));
}

export async function runOperation(
  ctx: DoorContext,
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  op: Operation,
  params: Record<string, string>,
  query: Record<string, string>,
): Promise<void> {
  const http = op.http!;
  const principal = await ctx.authenticate(req, state);
  await chargeRequest(ctx.limiter, state);
  let body: unknown;
  if (http.method === 'POST' || http.method === 'PATCH' || http.method === 'PUT') {
    if (http.bodyType === 'ndjson') {
      requireContentType(req, 'ndjson');
      const raw = await readBody(req, ctx.bodyLimit);
      body = utf8Text(raw);
      const lines = (body as string).split('\n').filter((l) => l.trim() !== '').length;
      await chargeRequest(ctx.limiter, state, workCost(raw.length, lines), 1);
    } else {
      requireContentType(req, 'json');
      body = await readJsonObject(ctx, req, state);
      if (http.body) body = parseInput(http.body, op.name, body ?? {});
    }
  } else if (http.method === 'DELETE' && http.body) {
    // A DELETE may carry its input as a JSON body (or as query parameters; the binding merges them).
    requireContentType(req, 'json');
    body = await readJsonObject(ctx, req, state);
    if (body !== undefined) body = parseInput(http.body, op.name, body);
  } else {
    req.resume();
  }
  // Query parameters are checked against the route's schema (unknown or malformed ones are refused).
  if (http.query) query = parseInput(http.query, op.name, query) as Record<string, string>;
  const input = http.input ? http.input({ params, query, body }) : { ...(body as object | undefined), ...params };
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const result = await inSpace(principal.space, () =>
    op.run({ principal, stack: ctx.stack, params, transport: 'http', signal: abort.signal }, input ?? {}),
  );
  if (http.responseType === 'ndjson') {
    await ctx.respond.streamLines(res, result as AsyncIterable<unknown>, abort.signal);
    return;
  }
  ctx.respond.sendJson(res, http.status ? http.status(result) : 200, result);
}
