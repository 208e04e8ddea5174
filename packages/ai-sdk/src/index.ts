/**
 * `@mem/ai-sdk`: mem inside the Vercel AI SDK (v7) loop. Every name here is listed in README.md.
 */
export { executeMemoryCommand, type MemoryCommand, memoryCommandInput } from './anthropic-memory.js';
export {
  type MemoryMiddleware,
  type MemoryMiddlewareOptions,
  memoryMiddleware,
  type StepEndEvent,
} from './middleware.js';
export { type MemoryToolsOptions, memoryTools } from './tools.js';
