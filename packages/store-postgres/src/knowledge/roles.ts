/** The five roles of the knowledge store, as `knowledgeStoreOf` of @mem/core/adapter puts them together. */
export { createAdmin as admin } from './admin.js';
export { createCounters as counters } from './counters.js';
export { createReader as reader } from './reader.js';
export { createSearcher as searcher } from './searcher.js';
export { createWriter as writer } from './writer.js';
