export { type SearchResultJson, searchResultJson, toSearchJson, toSmartRecallJson } from '@mem/core';
export {
  conversationOperations,
  defaultOperations,
  defineOperation,
  knowledgeOperations,
  notebookOperations,
  type OpContext,
  type Operation,
  runnerOperations,
  stateOperations,
} from '@mem/operations';
export { openStack, optionalPackage, type StackOverrides } from './compose.js';
export { classify, type ErrorBody, HttpError, statusOf } from './errors.js';
export { type ApiKeyInfo, KeyStore, keysPathFor, type VerifiedKey } from './keys.js';
export { jsonLogger, memoryLogger, type ServerLogger, silentLogger } from './log.js';
export { createMcpServer, MCP_INSTRUCTIONS, serveMcpStdio, toolDefinitions } from './mcp.js';
export { buildOpenApi } from './openapi.js';
export { RateLimiter } from './rate-limit.js';
export { type ServeOptions, serveStack } from './serve.js';
export { type RunningServer, type ServerOptions, shutdownSignal, startServer } from './server.js';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_RATE,
  DEFAULT_TIMEOUTS,
  isLoopback,
  SERVER_VERSION,
} from './server-options.js';
export {
  EMBEDDERS,
  type Endpoint,
  type Env,
  isPostgresUrl,
  readServeSettings,
  readSettings,
  type ServeSettings,
  type SettingFlags,
  type Settings,
  STORES,
} from './settings.js';
export { type DefaultServerOptions, startDefaultServer } from './start.js';
