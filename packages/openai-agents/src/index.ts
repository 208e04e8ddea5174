/** `@mem/openai-agents`: mem for the OpenAI Agents SDK. */
export { latestUserText, type MemoryRecallFilterOptions, memoryRecallFilter } from './recall.js';
export { MemSession, type MemSessionOptions } from './session.js';
export { agentsToolName, type MemoryToolsOptions, memoryTools } from './tools.js';
