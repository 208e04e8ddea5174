/** `@mem/langgraph`: mem as a LangGraph.js store. */
export { decodeSegment, encodeSegment, itemKey, namespacePrefix, parseItemKey } from './keys.js';
export { MemStore, type MemStoreOptions } from './store.js';
