/**
 * The hybrid search of the candidate stores (episodes, procedures): the two arms of services/search-arms.ts, each
 * fetching `candidateMultiplier × topK` candidates (at most `maxCandidates`), fused by weighted RRF. Shared by @mem/episodic
 * and @mem/procedural so that both search the same way; what they do with the fused list (episodes: take the top;
 * procedures: combine with the success rate) is theirs.
 */

import type { z } from 'zod';
import { newId } from '../domain/ids.js';
import { checkName } from '../domain/names.js';
import { DEFAULT_RRF_FUSION, type FusionOptions, fuseRRF } from '../domain/ranking.js';
import { assertNoSecrets } from '../domain/secrets.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { Embedder } from '../ports/embedder.js';
import type { CandidateStoreCapabilities } from '../ports/episode-store.js';
import type { KeywordHit, VectorHit } from '../ports/knowledge-store.js';
import { NO_USAGE, type TokenUsage } from '../ports/summarizer.js';
import { parseInput } from '../schemas.js';
import type { JsonObject, StoredEmbedding } from '../types-structured.js';
import { embedTexts } from './embedding.js';
import { DEFAULT_SEARCH_ARMS, runSearchArms, type SearchArmOptions } from './search-arms.js';

/** The search half of EpisodeStore and ProcedureStore. */
export interface CandidateSearchStore {
  readonly capabilities: CandidateStoreCapabilities;
  keywordSearch(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]>;
  vectorSearch(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]>;
}

export interface CandidateSearchOptions extends SearchArmOptions {
  fusion: FusionOptions;
  /** Vector hits at or below this cosine are dropped (unrelated nearest neighbours). */
  minSimilarity: number;
}

export const DEFAULT_CANDIDATE_SEARCH: CandidateSearchOptions = {
  fusion: DEFAULT_RRF_FUSION,
  ...DEFAULT_SEARCH_ARMS,
  minSimilarity: 0,
};

export interface FusedCandidate {
  id: string;
  /** Fused score normalised to [0, 1]: 1 = rank 1 in every arm that ran. */
  relevance: number;
  keywordRank: number | null;
  vectorRank: number | null;
  /** The keyword arm's BM25-like score, or null when the keyword arm did not find it. */
  keywordScore: number | null;
  /** Raw cosine of the vector arm, or null when the vector arm did not find it. */
  similarity: number | null;
}

export interface CandidateSearchResult {
  /** Best first by fused (RRF) relevance. */
  candidates: FusedCandidate[];
  /** Which arms ran (an arm without terms, embedder or store support does not). */
  arms: { keyword: boolean; vector: boolean };
  /** Tokens the query embedding spent (zero without an embedder that reports usage). */
  usage: TokenUsage;
}

/**
 * Embed one text, checking the embedder's answer: `EMBEDDER_FAILED` (retryable) when it throws,
 * `EMBEDDING_MISMATCH` when the vector's length is not the declared dimension. Returns the embedding to store and the
 * tokens it spent (zero without an embedder that reports usage).
 */
export async function embedText(
  embedder: Embedder,
  text: string,
): Promise<{ embedding: StoredEmbedding; usage: TokenUsage }> {
  const { vectors, usage } = await embedTexts(embedder, [text]);
  return { embedding: { vector: vectors[0]!, model: embedder.id }, usage };
}

/** A candidate search over one store and embedder, the store's capabilities read once, when it is made. */
export interface CandidateSearcher {
  /** The embedder when the store keeps vectors, else undefined: what a write embeds with. */
  readonly vectorEmbedder: Embedder | undefined;
  /** `searchCandidates` over this store and embedder. */
  search(space: string, query: string, topK: number, options: CandidateSearchOptions): Promise<CandidateSearchResult>;
  /**
   * The embedding a write stores with `text` (null when the store keeps no vectors or there is no embedder) and the
   * tokens it spent.
   */
  embed(text: string): Promise<{ embedding: StoredEmbedding | null; usage: TokenUsage }>;
  /**
   * `search`, the best `keep` candidates (all by default) joined with their records, read in one `getMany` (best
   * first; a candidate whose record is gone meanwhile is left out).
   */
  searchRecords<R extends { id: string }>(
    space: string,
    query: string,
    topK: number,
    options: CandidateSearchOptions,
    getMany: (space: string, ids: string[]) => Promise<R[]>,
    keep?: number,
  ): Promise<{
    found: { candidate: FusedCandidate; record: R }[];
    arms: CandidateSearchResult['arms'];
    usage: TokenUsage;
  }>;
}

/**
 * The search of `searchCandidates` for one store and embedder, made once (e.g. when an episodic or procedural memory
 * is built): which arms can run is decided here from the store's capabilities, not on every call.
 */
export function candidateSearcher(store: CandidateSearchStore, embedder: Embedder | undefined): CandidateSearcher {
  const keyword = store.capabilities.keyword;
  const vectorEmbedder = embedder !== undefined && store.capabilities.vector ? embedder : undefined;
  const embed = vectorEmbedder ? (texts: string[]) => embedTexts(vectorEmbedder, texts) : undefined;
  const search: CandidateSearcher['search'] = (space, query, topK, options) =>
    fuseCandidates(
      runSearchArms(query, topK, options, {
        keyword,
        embed,
        keywordSearch: (terms, n) => store.keywordSearch(space, terms, n),
        vectorSearch: async (v, n) =>
          (await store.vectorSearch(space, v, vectorEmbedder!.id, n)).filter(
            (h) => h.similarity > options.minSimilarity,
          ),
      }),
      options,
    );
  return {
    vectorEmbedder,
    search,
    embed: async (text) => {
      if (!vectorEmbedder) return { embedding: null, usage: { ...NO_USAGE } };
      return embedText(vectorEmbedder, text);
    },
    searchRecords: async (space, query, topK, options, getMany, keep) => {
      const result = await search(space, query, topK, options);
      const { arms, usage } = result;
      const candidates = keep === undefined ? result.candidates : result.candidates.slice(0, keep);
      const byId = new Map(
        (
          await getMany(
            space,
            candidates.map((c) => c.id),
          )
        ).map((r) => [r.id, r]),
      );
      const found = candidates.flatMap((candidate) => {
        const record = byId.get(candidate.id);
        return record ? [{ candidate, record }] : [];
      });
      return { found, arms, usage };
    },
  };
}

/**
 * Fused candidates for a query, best first (all of them, up to the arms' candidate counts; the caller cuts).
 * The keyword arm ORs the query terms (any term may match); the vector arm runs when an embedder is given and the
 * store supports vectors, comparing only vectors of the same embedder model. Reads the store's capabilities on each
 * call: a caller that searches the same store again makes a `candidateSearcher` once instead.
 */
export async function searchCandidates(
  store: CandidateSearchStore,
  embedder: Embedder | undefined,
  space: string,
  query: string,
  topK: number,
  options: CandidateSearchOptions,
): Promise<CandidateSearchResult> {
  return candidateSearcher(store, embedder).search(space, query, topK, options);
}

async function fuseCandidates(
  ran: ReturnType<typeof runSearchArms>,
  options: CandidateSearchOptions,
): Promise<CandidateSearchResult> {
  const { keywordHits: keyword, vectorHits: vector, ran: arms, usage } = await ran;
  const keywordScore = new Map(keyword.map((h) => [h.id, h.score]));
  const similarity = new Map(vector.map((h) => [h.id, h.similarity]));
  const candidates = fuseRRF(
    keyword.map((h) => h.id),
    vector.map((h) => h.id),
    options.fusion,
    arms,
  ).map((f) => ({
    id: f.id,
    relevance: f.relevance,
    keywordRank: f.keywordRank,
    vectorRank: f.vectorRank,
    keywordScore: keywordScore.get(f.id) ?? null,
    similarity: similarity.get(f.id) ?? null,
  }));
  return { candidates, arms, usage };
}

/** A candidate store as a memory over it uses it: its search, writing and reading records, counting a space. */
export interface CandidateRecordStore<R extends { id: string } = { id: string }> extends CandidateSearchStore {
  insert(space: string, record: R, embedding: StoredEmbedding | null): Promise<void>;
  getMany(space: string, ids: string[]): Promise<R[]>;
  count(space: string): Promise<number>;
}

/** What a search of a candidate memory reads: the query and how many results (absent: the memory's default). */
type CandidateQueryInput = z.ZodType<{ query: string; topK?: number | undefined }>;

/** What a memory over a candidate store is built from: the store, an optional embedder and clock, its options. */
export interface CandidateMemoryDeps<S extends CandidateRecordStore, O extends CandidateSearchOptions> {
  store: S;
  /** Without one, search uses the keyword arm alone. */
  embedder?: Embedder | undefined;
  clock?: Clock | undefined;
  options?: Partial<O> | undefined;
}

/** What every candidate record has, filled in by `CandidateMemory` before the write builds the rest. */
export interface CandidateCommon {
  id: string;
  tags: string[];
  metadata: JsonObject;
}

/** What every candidate input may give: its id, tags and metadata. */
type CandidateInput = z.ZodType<{
  id?: string | undefined;
  tags?: string[] | undefined;
  metadata?: JsonObject | undefined;
}>;

/**
 * How a memory over a candidate store writes one record of kind `key` (`episode`, `procedure`): the input's schema,
 * the record built from the checked input and the common fields (id generated when missing, tags without repeats,
 * metadata `{}` when absent), its search text, and the secret checks of its other parts. The memory checks the search
 * text and the metadata itself.
 */
export interface CandidateWrite<T extends CandidateInput, R extends CandidateCommon, K extends string> {
  /** The kind: names the store report's field, the operation in an INVALID_INPUT error (`episode store`), the secrets. */
  key: K;
  schema: T;
  /** The record for a checked input, written at `now`. */
  build(parsed: z.infer<T>, now: Date, common: CandidateCommon): R;
  /** The text the record is found by (keyword index and embedding). */
  text(record: R): string;
  /** Throws SECRET_DETECTED when a part of the record other than its search text and metadata holds a secret. */
  check?(record: R): void;
}

/** What `storeReport` of a candidate memory answers: the stored record under its key, and the tokens embedding spent. */
export type CandidateStoreReport<R, K extends string> = { [k in K]: R } & { usage: TokenUsage };

/**
 * The common part of episodic and procedural memory: the embedder, the options over their defaults, the clock, the
 * candidate searcher of the store, made once, and the write (`store`, `storeReport`) its `CandidateWrite` describes.
 */
export abstract class CandidateMemory<
  S extends CandidateRecordStore<R>,
  O extends CandidateSearchOptions,
  R extends CandidateCommon,
  T extends CandidateInput,
  K extends string,
> {
  readonly embedder: Embedder | undefined;
  readonly options: O;
  protected readonly clock: Clock;
  /** The store the memory keeps its records in. */
  protected readonly records: S;
  /** The search over the store, its capabilities read once here. */
  protected readonly searcher: CandidateSearcher;
  readonly #write: CandidateWrite<T, R, K>;

  protected constructor(deps: CandidateMemoryDeps<S, O>, defaults: O, write: CandidateWrite<T, R, K>) {
    this.embedder = deps.embedder;
    this.records = deps.store;
    this.searcher = candidateSearcher(deps.store, deps.embedder);
    this.clock = deps.clock ?? systemClock;
    this.options = { ...defaults, ...deps.options };
    this.#write = write;
  }

  /** How many records the space holds. */
  async count(space: string): Promise<number> {
    checkName(space, 'space');
    return this.records.count(space);
  }

  /** Validate, build and store a record (ids and timestamps filled in when missing). Secrets are refused. */
  async store(space: string, input: z.input<T>): Promise<R> {
    return ((await this.storeReport(space, input)) as Record<K, R>)[this.#write.key];
  }

  /** `store`, also reporting the tokens the embedder spent on the record's text (zero without one that reports usage). */
  async storeReport(space: string, input: z.input<T>): Promise<CandidateStoreReport<R, K>> {
    const write = this.#write;
    const parsed = this.parse(space, write.schema, `${write.key} store`, input);
    const now = this.clock.now();
    const common = {
      id: parsed.id ?? newId(now),
      tags: [...new Set(parsed.tags ?? [])],
      metadata: parsed.metadata ?? {},
    };
    const record = write.build(parsed, now, common);
    const text = write.text(record);
    assertNoSecrets(text, write.key);
    assertNoSecrets(JSON.stringify(record.metadata, null, 1), `${write.key} metadata`);
    write.check?.(record);
    const { embedding, usage } = await this.searcher.embed(text);
    await this.records.insert(space, record, embedding);
    return { [write.key]: record, usage } as CandidateStoreReport<R, K>;
  }

  /**
   * The fused candidates for `query` joined with their records, best first: the query and `topK` (absent: `defaultTopK`)
   * checked by `schema`; `cut` keeps only the best `topK` (otherwise the caller ranks them further and cuts).
   */
  protected async findRecords(
    space: string,
    schema: CandidateQueryInput,
    operation: string,
    query: string,
    topK: number | undefined,
    defaultTopK: number,
    cut: boolean,
  ) {
    const input = this.parse(space, schema, operation, topK === undefined ? { query } : { query, topK });
    const k = input.topK ?? defaultTopK;
    const found = await this.searcher.searchRecords(
      space,
      input.query,
      k,
      this.options,
      (sp, ids) => this.records.getMany(sp, ids),
      cut ? k : undefined,
    );
    return { ...found, k };
  }

  /** `input` read by `schema` for a call in `space` (both checked: INVALID_INPUT naming `operation` otherwise). */
  protected parse<T extends z.ZodType>(space: string, schema: T, operation: string, input: unknown): z.infer<T> {
    checkName(space, 'space');
    return parseInput(schema, operation, input);
  }
}
