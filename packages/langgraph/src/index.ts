/** `@mem/langgraph`: mem as a LangGraph.js store, and mem's tools for LangGraph.js agents. */
export { decodeSegment, encodeSegment, itemKey, namespacePrefix, parseItemKey } from './keys.js';
export { MemStore, type MemStoreOptions } from './store.js';
export { type MemoryToolsOptions, memoryTools } from './tools.js';
