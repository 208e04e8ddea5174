/**
 * `MemRetriever`: a LangChain `BaseRetriever` over mem's knowledge memory, as a principal sees it (docs in README.md).
 * `mode: 'search'` (default) runs memory-search, mem's hybrid ranking with its filters; `mode: 'recall'` returns
 * what the pre-task recall block would hold (the memories that pass the injection threshold, with their confidence).
 */
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import {
  checkName,
  type KnowledgeService,
  MemError,
  memorySearchInput,
  type Principal,
  parseInput,
  type RecalledMemory,
  type Scope,
  type SearchResult,
  type Source,
  type Stack,
} from '@mem/core';

/** The memory-search filters the retriever passes on (mode `search`). */
export interface MemRetrieverFilters {
  /** Only keys starting with this literal, case-sensitive prefix (e.g. `/projects/billing/`). */
  keyPrefix?: string | undefined;
  /** `agent` (the principal's own) or `swarm` (shared in the space); default both. */
  scope?: Scope | undefined;
  /** Only memories carrying every tag listed. */
  tags?: string[] | undefined;
  /** Only memories of this source (`manual`, `distilled`, `task_completion`, …). */
  source?: Source | undefined;
  /** Memory as it stood at this time (ISO date or time): what held then. */
  asOf?: string | undefined;
  /** Every memory whatever its validity: superseded and closed ones too. */
  history?: boolean | undefined;
}

export interface MemRetrieverOptions extends BaseRetrieverInput {
  /** The mem stack (`createStack(...)`); or give `knowledge`. */
  stack?: Stack | undefined;
  /** The knowledge service of a mem stack (`stack.knowledge`). */
  knowledge?: KnowledgeService | undefined;
  /** Who reads: `{ space, agentId, role, userId? }`; memories about a user are found only with their `userId`. */
  principal: Principal;
  /** `search` (default): memory-search with its filters; `recall`: the memories the recall block would hold. */
  mode?: 'search' | 'recall' | undefined;
  /** Most documents (1–50); default mem's (`searchLimit` for search, `recallLimit` for recall). */
  limit?: number | undefined;
  /**
   * Drop results whose cosine similarity to the query is below this (−1…1). A result without a similarity (a stack
   * without an embedder, a keyword-only hit) never passes it.
   */
  minSimilarity?: number | undefined;
  /** Mode `recall`: the match confidence a memory needs (0…1); default the stack's injection threshold. */
  threshold?: number | undefined;
  /** Mode `search`: memory-search's filters (key prefix, scope, tags, source, `asOf`, `history`). */
  filter?: MemRetrieverFilters | undefined;
}

/** What each document's `metadata` holds. */
export interface MemDocumentMetadata {
  /** The memory's id (for `mem get`, `memory-edit`, `memory_rate`). */
  id: string;
  /** The chunk's id (the memory's id for its first chunk). */
  chunkId: string;
  chunkIndex: number;
  chunkCount: number;
  key: string;
  name: string;
  scope: Scope;
  source: Source;
  tags: string[];
  /** The agent that owns the memory. */
  agentId: string;
  /** The end user it is about, or null. */
  userId: string | null;
  /** Raw cosine between the query and the memory, or null without vectors. */
  similarity: number | null;
  /** mem's relevance of the hit (keyword and vector arms fused). */
  relevance: number;
  /** mem's final ranking score (relevance with recency, usefulness and path weight). */
  score: number;
  /** Mode `recall` only: how sure the ranking is that the memory answers the query (0…1). */
  confidence?: number;
  /** World time from which it holds (its recording time when none was said). */
  validFrom: string;
  /** World time until which it held (exclusive), or null: still holds. */
  validTo: string | null;
  /** When mem recorded it (system time). */
  recordedAt: string;
  updatedAt: string;
}

/** The longest query memory-search takes; a longer one is cut (recall cuts its task the same way). */
const MAX_QUERY_CHARS = 4000;
const FILTERS = ['keyPrefix', 'scope', 'tags', 'source', 'asOf', 'history'] as const;

/** A retriever over mem's knowledge memory for one principal. */
export class MemRetriever extends BaseRetriever<MemDocumentMetadata> {
  lc_namespace = ['mem', 'langchain', 'retrievers'];

  readonly principal: Principal;
  readonly mode: 'search' | 'recall';
  private readonly knowledge: KnowledgeService;
  private readonly limit: number | undefined;
  private readonly minSimilarity: number | undefined;
  private readonly threshold: number | undefined;
  private readonly filters: MemRetrieverFilters;

  static override lc_name(): string {
    return 'MemRetriever';
  }

  constructor(options: MemRetrieverOptions) {
    if (!options || typeof options !== 'object') {
      throw new MemError(
        'INVALID_INPUT',
        'new MemRetriever needs { stack, principal }: a mem stack (createStack(...)) or its knowledge service, and who reads ({ space, agentId, role, userId? }).',
      );
    }
    const { stack, knowledge, principal, mode, limit, minSimilarity, threshold, filter, ...fields } = options;
    super(fields);
    const service = stack?.knowledge ?? knowledge;
    if (!service) {
      throw new MemError(
        'INVALID_INPUT',
        'new MemRetriever needs `stack` (createStack(...)) or `knowledge` (stack.knowledge) to search in.',
      );
    }
    checkPrincipal(principal);
    const m = mode ?? 'search';
    if (m !== 'search' && m !== 'recall')
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: mode must be "search" or "recall", got ${JSON.stringify(mode)}.`,
      );
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 50))
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: limit must be a whole number from 1 to 50, got ${JSON.stringify(limit)}.`,
      );
    if (
      minSimilarity !== undefined &&
      !(typeof minSimilarity === 'number' && minSimilarity >= -1 && minSimilarity <= 1)
    )
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: minSimilarity is a cosine from -1 to 1, got ${JSON.stringify(minSimilarity)}.`,
      );
    if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1))
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: threshold is a confidence from 0 to 1, got ${JSON.stringify(threshold)}.`,
      );
    if (threshold !== undefined && m !== 'recall')
      throw new MemError(
        'INVALID_INPUT',
        'MemRetriever: threshold (a match confidence) applies to mode "recall"; in mode "search" use minSimilarity.',
      );
    if (filter !== undefined && (typeof filter !== 'object' || filter === null || Array.isArray(filter)))
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: filter must be an object such as { keyPrefix: '/projects/', tags: ['billing'] }, got ${describe(filter)}.`,
      );
    const filters: MemRetrieverFilters = {};
    for (const [name, value] of Object.entries(filter ?? {})) {
      if (!(FILTERS as readonly string[]).includes(name))
        throw new MemError(
          'INVALID_INPUT',
          `MemRetriever: unknown filter "${name}"; mem filters by ${FILTERS.join(', ')}.`,
        );
      if (value !== undefined) (filters as Record<string, unknown>)[name] = value;
    }
    if (m === 'recall' && Object.keys(filters).length > 0)
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: mode "recall" takes no filter (got ${Object.keys(filters).join(', ')}); use mode "search" to filter by key, scope, tags, source or time.`,
      );
    // The filter's values are checked now, with memory-search's own schema (INVALID_INPUT naming the field).
    if (m === 'search') parseInput(memorySearchInput, 'MemRetriever filter', { query: 'check', ...filters });
    this.knowledge = service;
    this.principal = principal;
    this.mode = m;
    this.limit = limit;
    this.minSimilarity = minSimilarity;
    this.threshold = threshold;
    this.filters = filters;
  }

  private searchInput(query: string): Record<string, unknown> {
    return { query, ...(this.limit !== undefined ? { limit: this.limit } : {}), ...this.filters };
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document<MemDocumentMetadata>[]> {
    if (typeof query !== 'string' || query.trim().length === 0) {
      throw new MemError(
        'INVALID_INPUT',
        `MemRetriever: the query must be non-empty text, got ${typeof query === 'string' ? 'an empty string' : describe(query)}.`,
      );
    }
    const hits: (SearchResult | RecalledMemory)[] =
      this.mode === 'recall'
        ? (
            await this.knowledge.recall(this.principal, query, {
              ...(this.limit !== undefined ? { limit: this.limit } : {}),
              ...(this.threshold !== undefined ? { threshold: this.threshold } : {}),
            })
          ).memories
        : await this.knowledge.search(this.principal, this.searchInput(query.slice(0, MAX_QUERY_CHARS)));
    const min = this.minSimilarity;
    return hits
      .filter((h) => min === undefined || (h.similarity !== null && h.similarity >= min))
      .map((h) => toDocument(h));
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object (pass the query text itself)' : typeof value;
}

function checkPrincipal(p: unknown): asserts p is Principal {
  if (!p || typeof p !== 'object') {
    throw new MemError(
      'INVALID_INPUT',
      'MemRetriever: principal must be { space, agentId, role, userId? }, e.g. { space: "default", agentId: "assistant", role: "worker" }.',
    );
  }
  const { space, agentId, role, userId } = p as Principal;
  checkName(space, 'space');
  checkName(agentId, 'agent');
  if (role !== 'worker' && role !== 'lead')
    throw new MemError(
      'INVALID_INPUT',
      `MemRetriever: principal.role must be "worker" or "lead", got ${JSON.stringify(role)}.`,
    );
  if (userId !== undefined) checkName(userId, 'user');
}

function toDocument(h: SearchResult | RecalledMemory): Document<MemDocumentMetadata> {
  const metadata: MemDocumentMetadata = {
    id: h.docId,
    chunkId: h.id,
    chunkIndex: h.chunkIndex,
    chunkCount: h.chunkCount,
    key: h.key,
    name: h.name,
    scope: h.scope,
    source: h.source,
    tags: [...h.tags],
    agentId: h.agentId,
    userId: h.userId,
    similarity: h.similarity,
    relevance: h.relevance,
    score: h.score,
    ...('confidence' in h ? { confidence: h.confidence } : {}),
    validFrom: h.validFrom ?? h.createdAt,
    validTo: h.validTo,
    recordedAt: h.createdAt,
    updatedAt: h.updatedAt,
  };
  return new Document<MemDocumentMetadata>({ pageContent: h.content, metadata, id: h.id });
}
