/** `@mem/langchain`: mem for LangChain.js — a retriever, a chat message history and a key-value store over mem. */
export { MemChatMessageHistory, type MemChatMessageHistoryOptions } from './chat-history.js';
export { MAX_KEY_LENGTH, MemKeyValueStore, type MemKeyValueStoreOptions } from './kv-store.js';
export { contentText, fromTranscript, toTranscript } from './messages.js';
export {
  type MemDocumentMetadata,
  MemRetriever,
  type MemRetrieverFilters,
  type MemRetrieverOptions,
} from './retriever.js';
