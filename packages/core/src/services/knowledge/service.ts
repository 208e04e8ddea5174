import type { MemError } from '../../errors.js';
import type { Embedder } from '../../ports/embedder.js';
import type { KnowledgeStore } from '../../ports/knowledge-store.js';
import type { QueryRewriter } from '../../ports/query-rewriter.js';
import type { Reranker } from '../../ports/reranker.js';
import type { DistillMessage, StatementExtractor } from '../../ports/statement-extractor.js';
import type { TokenUsage } from '../../ports/summarizer.js';
import type { MemoryVersion, Principal, Scope } from '../../types.js';
import { createOfflineStatementExtractor } from '../offline-extractor.js';
import { KnowledgeContext } from './context.js';
import * as curation from './curation.js';
import * as formation from './formation.js';
import * as formationLog from './formation-log.js';
import * as ingest from './ingest.js';
import type { KnowledgeOptions } from './options.js';
import * as search from './search.js';
import * as transfer from './transfer.js';
import type * as T from './types.js';

/**
 * The knowledge memory operations of docs/ranking.md over a KnowledgeStore and an optional Embedder. A facade: each
 * role lives in a file of its own (ingest, search, curation, transfer), all sharing one KnowledgeContext.
 */
export class KnowledgeService {
  readonly knowledge: KnowledgeStore;
  readonly embedder: Embedder | undefined;
  readonly reranker: Reranker | undefined;
  readonly queryRewriter: QueryRewriter | undefined;
  readonly options: KnowledgeOptions;
  /** What `distill` reads conversations with. */
  readonly extractor: StatementExtractor;
  private readonly ctx: KnowledgeContext;

  constructor(deps: T.KnowledgeServiceDeps) {
    this.ctx = new KnowledgeContext(deps);
    this.extractor = deps.extractor ?? createOfflineStatementExtractor();
    this.knowledge = this.ctx.knowledge;
    this.embedder = this.ctx.embedder;
    this.reranker = this.ctx.reranker;
    this.queryRewriter = this.ctx.queryRewriter;
    this.options = this.ctx.options;
  }

  // ---------- ingest ----------

  /** memory-store */
  store(p: Principal, raw: unknown, overrides: T.StoreOverrides = {}): Promise<T.StoreResult> {
    return ingest.store(this.ctx, p, raw, overrides);
  }

  /** memory-store for many items at once: one result or MemError per input, in order (see ingest.ts). */
  storeMany(
    p: Principal,
    inputs: unknown[],
    overrides: (T.StoreOverrides | undefined)[] = [],
  ): Promise<(T.StoreResult | MemError)[]> {
    return ingest.storeMany(this.ctx, p, inputs, overrides);
  }

  /** memory-index: index a document by its source path; the same path again replaces it (unchanged content is a no-op). */
  index(
    p: Principal,
    raw: unknown,
    options: { scope?: Scope } = {},
  ): Promise<T.StoreResult & { status: 'created' | 'updated' | 'unchanged' }> {
    return ingest.index(this.ctx, p, raw, options);
  }

  // ---------- search and recall ----------

  /** memory-search */
  async search(p: Principal, raw: unknown): Promise<T.SearchResult[]> {
    return (await this.searchReport(p, raw)).results;
  }

  /** memory-search with the caller's `intent` (logged) and the tokens the query embedding spent. */
  searchReport(
    p: Principal,
    raw: unknown,
  ): Promise<{ results: T.SearchResult[]; intent: string | null; usage: TokenUsage }> {
    return search.searchReport(this.ctx, p, raw);
  }

  /** memory-dedup-check: is this text already remembered? */
  dedupCheck(p: Principal, raw: unknown): Promise<T.DedupResult> {
    return search.dedupCheck(this.ctx, p, raw);
  }

  /** smart-recall: several queries, merged by id; score = best similarity + bonus × hits; top 2 × limit. */
  async smartRecall(p: Principal, raw: unknown): Promise<T.SmartRecallResult[]> {
    return (await this.smartRecallReport(p, raw)).results;
  }

  /** smart-recall with the tokens the embedder spent on the queries. */
  smartRecallReport(p: Principal, raw: unknown): Promise<{ results: T.SmartRecallResult[]; usage: TokenUsage }> {
    return search.smartRecallReport(this.ctx, p, raw);
  }

  /** task-context-gathering: the task plus a smart recall (queries default to the task itself). */
  taskContext(
    p: Principal,
    raw: unknown,
  ): Promise<{ task: string; taskId: string | null; memories: T.SmartRecallResult[]; usage: TokenUsage }> {
    return search.taskContext(this.ctx, p, raw);
  }

  /**
   * The pre-task recall block (docs/ranking.md): memories passing the injection threshold, or no block at all.
   * `readHint` replaces the block's last line (how to read a memory in full; null: no such line).
   */
  recall(
    p: Principal,
    task: string,
    options: { limit?: number; threshold?: number; readHint?: string | null } = {},
  ): Promise<T.RecallBlock> {
    return search.recall(this.ctx, p, task, options);
  }

  // ---------- formation (docs/formation.md) ----------

  /**
   * distill: form memories from the given messages (or, when the input names none, `fallback.messages`): add,
   * supersede, close or add evidence, in one atomic write, each decision logged.
   */
  distill(
    p: Principal,
    raw: unknown,
    fallback: { messages?: readonly DistillMessage[] } = {},
  ): Promise<formation.DistillReport> {
    return formation.distill(this.ctx, this.extractor, p, raw, fallback);
  }

  /** why: the decisions behind a formed memory, the messages they cite and its supersede chain. */
  /** Apply proposals review mode kept (`approve`), each decided again against what is current now. */
  formPending(p: Principal, pending: readonly formation.PendingProposal[]): Promise<formation.DistillReport> {
    return formation.formPending(this.ctx, p, pending);
  }

  why(p: Principal, raw: unknown): Promise<formationLog.WhyReport> {
    return formationLog.why(this.ctx, p, raw);
  }

  /** history: the supersede chain of a memory, oldest first, each with its decisions. */
  history(p: Principal, raw: unknown): Promise<formationLog.HistoryReport> {
    return formationLog.history(this.ctx, p, raw);
  }

  // ---------- curation ----------

  /** memory-get: the whole document; counts one access. */
  get(p: Principal, raw: unknown): Promise<T.MemoryDocument> {
    return curation.get(this.ctx, p, raw);
  }

  /** Read a document without counting an access (inspection, export). */
  peek(p: Principal, raw: unknown): Promise<T.MemoryDocument> {
    return curation.peek(this.ctx, p, raw);
  }

  /** memory-edit: replace, exact passage change, or a pure move with `newKey`. */
  edit(p: Principal, raw: unknown): Promise<T.EditResult> {
    return curation.edit(this.ctx, p, raw);
  }

  /** memory-delete: the document with all its chunks. */
  delete(p: Principal, raw: unknown): Promise<{ id: string; deletedChunks: number }> {
    return curation.deleteMemory(this.ctx, p, raw);
  }

  /** memory_rate: at most one counted vote per (memory, rater); the author's own votes are recorded, not counted. */
  rate(p: Principal, raw: unknown): Promise<T.RateResult> {
    return curation.rate(this.ctx, p, raw);
  }

  /** inject-learning: a lead teaches an agent; stored at swarm scope, source manual, tagged with the category. */
  injectLearning(p: Principal, raw: unknown): Promise<T.StoreResult> {
    return curation.injectLearning(this.ctx, p, raw);
  }

  /** Version history of a document, oldest first. */
  versions(p: Principal, raw: unknown): Promise<MemoryVersion[]> {
    return curation.versions(this.ctx, p, raw);
  }

  /** gc: delete expired memories of a space (or of every space). `/longterm` never expires. */
  gc(p: Principal, options: { allSpaces?: boolean } = {}): Promise<{ deletedChunks: number }> {
    return curation.gc(this.ctx, p, options);
  }

  // ---------- transfer ----------

  /** Export documents the principal may see (a lead: the whole space), oldest first, with original timestamps. */
  export(p: Principal, options: { batchSize?: number } = {}): AsyncGenerator<T.ExportRecord> {
    return transfer.exportRecords(this.ctx, p, options);
  }

  /** Import one record (as written by export). A lead may import for other agents of the space. */
  import(p: Principal, record: T.ImportRecord): Promise<T.StoreResult> {
    return transfer.importRecord(this.ctx, p, record);
  }

  /** Import JSON Lines (as written by export), line by line checked, written in batches (see transfer.ts). */
  importLines(p: Principal, text: string, options: transfer.ImportLinesOptions = {}): Promise<T.ImportReport> {
    return transfer.importLines(this.ctx, p, text, options);
  }

  /** Re-embed every stored chunk with the current embedder (all spaces). */
  reindex(
    options: { batchSize?: number; onProgress?: (done: number) => void } = {},
  ): Promise<{ chunks: number; model: string; dimension: number; usage: TokenUsage }> {
    return transfer.reindex(this.ctx, options);
  }

  stats(p: Principal) {
    return transfer.stats(this.ctx, p);
  }
}
