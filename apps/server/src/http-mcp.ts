/**
 * `POST /mcp` (and `POST /mcp/memory-server`, the nine tools of the MCP memory server): stateless streamable HTTP. A batch is bounded (`maxBatch`) and pays one rate token per tools/call;
 * each request gets an MCP server of its own for the caller's principal.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { DoorContext } from './door-context.js';
import { HttpError } from './errors.js';
import { inSpace } from './fair-queue.js';
import { requireContentType } from './guard.js';
import { createMcpServer, type McpProfile, mcpProfile } from './mcp.js';
import { parseJsonText, type RequestState, readBody, utf8Text } from './request.js';
import { chargeRequest, workCost } from './request-cost.js';
import { SERVER_VERSION } from './server-options.js';

export async function handleMcp(
  ctx: DoorContext,
  req: IncomingMessage,
  res: ServerResponse,
  state: RequestState,
  profile: McpProfile | null = null,
): Promise<void> {
  const principal = await ctx.authenticate(req, state);
  await chargeRequest(ctx.limiter, state);
  requireContentType(req, 'json');
  const raw = await readBody(req, ctx.bodyLimit);
  const body = parseJsonText(utf8Text(raw));
  type Message = { method?: unknown; params?: { name?: unknown } } | undefined | null;
  const messages: Message[] = Array.isArray(body) ? (body as Message[]) : [body as Message];
  if (messages.length > ctx.maxBatch) {
    throw new HttpError(
      413,
      'TOO_LARGE',
      `This MCP request carries ${messages.length} JSON-RPC messages; at most ${ctx.maxBatch} go in one POST. Split the batch.`,
    );
  }
  const calls = messages.filter((m) => m?.method === 'tools/call');
  // Each tools/call is one operation: the request pays for each, not once for the batch.
  await chargeRequest(ctx.limiter, state, workCost(raw.length, calls.length), 1);
  const message = messages.length === 1 ? messages[0] : undefined;
  if (message?.method === 'tools/call' && typeof message.params?.name === 'string') state.tool = message.params.name;
  const chosen = profile ? mcpProfile(ctx.stack, profile) : null;
  const server = createMcpServer({
    operations: chosen?.operations ?? ctx.operations,
    ...(chosen ? { instructions: chosen.instructions } : {}),
    stack: ctx.stack,
    principal,
    logger: ctx.logger,
    version: SERVER_VERSION,
    extend: ctx.mcpExtend,
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await inSpace(principal.space, () => transport.handleRequest(req, res, body));
}
