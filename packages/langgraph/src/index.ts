/**
 * `@mem/langgraph`: mem inside a LangGraph.js graph (the memory node), as its store and its checkpointer, and mem's
 * tools for its agents.
 */
export { MemCheckpointSaver, type MemCheckpointSaverOptions } from './checkpointer.js';
export { decodeSegment, encodeSegment, itemKey, namespacePrefix, parseItemKey } from './keys.js';
export {
  MemoryAnnotation,
  type MemoryGraphState,
  type MemoryNode,
  type MemoryNodeOptions,
  type MemoryState,
  memoryChannel,
  memoryNode,
  memoryPrompt,
  memoryRoute,
} from './memory-node.js';
export { toLangChain, toTurnMessage } from './messages.js';
export { MemStore, type MemStoreOptions } from './store.js';
export { type MemoryToolsOptions, memoryTools } from './tools.js';
