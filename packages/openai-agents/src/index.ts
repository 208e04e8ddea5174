/** `@mem/openai-agents`: mem for the OpenAI Agents SDK. */
export { MemSession, type MemSessionOptions } from './session.js';
export { type MemoryToolName, type MemoryToolsOptions, memoryTools } from './tools.js';
