/** The result and input types of the knowledge service (exported from @mem/core). */
import type { Clock } from '../../ports/clock.js';
import type { Embedder } from '../../ports/embedder.js';
import type { KnowledgeStore, KnowledgeStoreCapabilities } from '../../ports/knowledge-store.js';
import type { Logger } from '../../ports/logger.js';
import type { QueryRewriter } from '../../ports/query-rewriter.js';
import type { Reranker } from '../../ports/reranker.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import type { StatementExtractor } from '../../ports/statement-extractor.js';
import type { TokenUsage } from '../../ports/summarizer.js';
import type { MemoryFields, MemoryTimes, MemoryUse, MemoryValidity, Principal, Scope, Source } from '../../types.js';
import type { KnowledgeOptions } from './options.js';

export interface StoreResult {
  id: string;
  ids: string[];
  key: string;
  name: string;
  chunkCount: number;
  /** True when the same content already existed under this owner and scope (nothing new was written). */
  deduplicated: boolean;
  /** Tokens the embedder spent on this memory (zero when deduplicated or when the embedder reports none). */
  usage: TokenUsage;
}

export interface SearchResult extends MemoryFields, MemoryTimes, MemoryValidity {
  id: string;
  docId: string;
  chunkIndex: number;
  chunkCount: number;
  /** Raw cosine between query and memory, or null without vectors. */
  similarity: number | null;
  keywordRank: number | null;
  vectorRank: number | null;
  relevance: number;
  score: number;
}

export interface MemoryDocument extends MemoryFields, MemoryTimes, MemoryUse, MemoryValidity {
  id: string;
  chunkCount: number;
  chunks: { id: string; chunkIndex: number; content: string }[];
  usefulness: number;
  version: number;
  embeddingModel: string | null;
}

export interface EditResult {
  id: string;
  key: string;
  version: number;
  chunkCount: number;
  action: 'replaced' | 'moved' | 'replaced-and-moved';
  /** Tokens the embedder spent on the new content (zero for a pure move). */
  usage: TokenUsage;
}

export interface RateResult {
  id: string;
  alpha: number;
  beta: number;
  usefulness: number;
  /** False when the rater is the memory's author: the vote is recorded but does not move it. */
  counted: boolean;
  /** Earlier counted votes of this rater on the memory that this vote replaced. */
  replaced: number;
  /** A sentence for the caller when the vote was not counted or replaced an earlier one. */
  note?: string;
}

export interface DedupResult {
  isDuplicate: boolean;
  topSimilarity: number;
  duplicates: { id: string; name: string; similarity: number; scope: Scope; source: Source; preview: string }[];
  /** Tokens the embedder spent on the text. */
  usage: TokenUsage;
}

export interface SmartRecallResult extends SearchResult {
  /** best similarity (or relevance without vectors) + bonus × number of queries that found it. */
  recallScore: number;
  hits: number;
}

/** A memory in the recall block: a search result and how sure the ranking is that it answers the task. */
export interface RecalledMemory extends SearchResult {
  /** Match confidence in [0, 1] (docs/ranking.md): the task's words the memory holds and the calibrated similarity. */
  confidence: number;
}

export interface RecallBlock {
  /** Markdown block for the task message, or null when nothing passed the threshold. */
  block: string | null;
  memories: RecalledMemory[];
  /** Tokens the embedder spent on the query. */
  usage: TokenUsage;
}

/** One exported memory; formation's fields (docs/formation.md) are null for a memory written on purpose. */
export interface ExportRecord extends MemoryValidity {
  id: string;
  content: string;
  name: string;
  key: string;
  scope: Scope;
  source: Source;
  tags: string[];
  agentId: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  accessCount: number;
  alpha: number;
  beta: number;
}

export interface ImportRecord {
  content: string;
  name?: string;
  key?: string;
  scope?: Scope;
  source?: Source;
  tags?: string[];
  createdAt?: string;
  agentId?: string;
}

export interface ImportLineError {
  line: number;
  code: string;
  message: string;
}

export interface ImportReport {
  imported: number;
  duplicates: number;
  skipped: number;
  errors: ImportLineError[];
  /** Tokens the embedder spent on the imported memories. */
  usage: TokenUsage;
}

/** What the memory graph adds to a search: one query of what it knows around the entities named, or null. */
export type GraphQuery = (p: Principal, query: string, hops: number) => Promise<string | null>;

export interface KnowledgeServiceDeps {
  store: KnowledgeStore;
  embedder?: Embedder | undefined;
  clock: Clock;
  /** Where searches record their intent and task-context its taskId (info level). Default: silent. */
  logger?: Logger | undefined;
  options?: Partial<KnowledgeOptions> | undefined;
  /** Re-scores the fused top `rerankDepth` results of every search (off when absent). */
  reranker?: Reranker | undefined;
  /** The store's capabilities as the stack read them at assembly (read from the store when absent). */
  capabilities?: KnowledgeStoreCapabilities | undefined;
  /** Turns each search's query into a few (docs/ranking.md); off when absent. */
  queryRewriter?: QueryRewriter | undefined;
  /** The memory graph's query for a search (recall that follows links, docs/graph.md); off when absent. */
  graphQuery?: GraphQuery | undefined;
  /** An extra asynchronous secret scan after mem's own rules, awaited by every write (docs/safety.md). */
  secretScanner?: SecretScanner | undefined;
  /** What `distill` reads conversations with (docs/formation.md); default: the offline extractor. */
  extractor?: StatementExtractor | undefined;
}
/** Overrides of an import: the original creation time, and (for a lead) the agent it belongs to. */
export interface StoreOverrides {
  createdAt?: string;
  agentId?: string;
  /** Import only: the id the new memory gets (so that supersede links between imported memories hold). */
  docId?: string;
  /** Import only: a formed memory's times, chain, user and claim (docs/formation.md). */
  validity?: MemoryValidity;
  /** Set by inject-learning only: the lead, allowed to write the reserved `injected-by:` tag. */
  injectedBy?: string;
}
