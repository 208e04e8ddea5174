/** What the server's doors (the `/v1` operations and `POST /mcp`) share for one running server. */
import type { IncomingMessage } from 'node:http';
import type { Principal, Stack } from '@mem/core';
import type { Operation } from '@mem/operations';
import type { ServerLogger } from './log.js';
import type { McpOptions } from './mcp.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestState } from './request.js';
import type { Responder } from './respond.js';

export interface DoorContext {
  stack: Stack;
  operations: readonly Operation[];
  logger: ServerLogger;
  limiter: RateLimiter;
  bodyLimit: number;
  /** Most JSON-RPC messages in one MCP POST. */
  maxBatch: number;
  mcpExtend: McpOptions['extend'];
  respond: Responder;
  authenticate(req: IncomingMessage, state: RequestState): Promise<Principal>;
}
