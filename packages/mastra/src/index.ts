export { principalOf, resourceUserId, threadAgentId } from './ids.js';
export { MemMastraMemory } from './memory.js';
export type { MemMastraMemoryConfig, MemMastraMemoryOptions, MemRecallOptions } from './options.js';
