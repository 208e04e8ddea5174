/** The knowledge service: a facade (service.ts) over one file per role, sharing one context (context.ts). */
export { DEFAULT_KNOWLEDGE_OPTIONS, type KnowledgeOptions } from './options.js';
export { DEFAULT_RECALL_READ_HINT, provenanceLabel, renderRecallBlock } from './recall-block.js';
export { defaultName, INJECTED_BY_TAG, injectedBy } from './records.js';
export { KnowledgeService } from './service.js';
export type {
  DedupResult,
  EditResult,
  ExportRecord,
  ImportLineError,
  ImportRecord,
  ImportReport,
  KnowledgeServiceDeps,
  MemoryDocument,
  RateResult,
  RecallBlock,
  RecalledMemory,
  SearchResult,
  SmartRecallResult,
  StoreOverrides,
  StoreResult,
} from './types.js';
