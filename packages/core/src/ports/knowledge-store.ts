import type { KeywordLengthNorm } from '../domain/ranking.js';
import type { EmbeddingInfo, MemoryRecord, MemoryVersion, Rating, RatingOutcome, Scope, Source } from '../types.js';
import type { Erasable } from './eraser.js';

/**
 * Filters every search arm applies inside its query, before its top-k cut.
 * Visibility: rows with scope `swarm`, plus rows with scope `agent` owned by `viewerAgentId`.
 */
export interface SearchFilter {
  space: string;
  viewerAgentId: string;
  /** ISO time; rows with `expiresAt <= now` are invisible. */
  now: string;
  scope?: Scope;
  /** Literal, case-sensitive prefix of the key (no wildcards). */
  keyPrefix?: string;
  /** A row must carry every tag listed (exact match). */
  tags?: string[];
  source?: Source;
  /**
   * The end user the search is for: rows about no user, plus rows about this user. Absent: only rows about no user
   * (a memory about a user is never shown to a search that does not name them).
   */
  userId?: string;
  /**
   * World time (docs/formation.md). Absent: what is current, rows whose `validTo` is null or after `now`. An ISO time:
   * the rows that held then, `coalesce(validFrom, createdAt) <= asOf < validTo` (validTo null: still holds).
   */
  asOf?: string;
  /** True: every row whatever its validity (a supersede chain's history); `asOf` is then ignored. */
  history?: boolean;
}

/**
 * The neighbouring-turn lookup (docs/ranking.md): memories said right before and right after some others by the same
 * owner from the same source (a conversation's turns, not the files indexed beside them). Order is (createdAt, id):
 * ids made together increase, so it is the order memories were stored in. For each id `around` names, the `radius`
 * memories right before it and the `radius` right after it among those with its space, scope, agentId and source that
 * pass the query's filter; ids that are unknown or that the filter hides are skipped.
 */
export interface NeighbourRequest {
  /** How many memories to take on each side of each id (1 or more). */
  radius: number;
  /**
   * Called once, with what the arms found, to name the ids to look around (the core picks its best candidates: the
   * store does not rank). May name any ids, none, or ids the arms did not find.
   */
  around(found: FoundCandidates): readonly string[];
}

/**
 * One search's candidates in one call (docs/ranking.md): the keyword arm, the vector arm, the rows of every hit and the
 * neighbouring turns around the best, all under one filter, which the store builds once.
 */
export interface CandidateQuery {
  filter: SearchFilter;
  /** Terms to OR together (already normalised and capped by the core); empty: the keyword arm does not run. */
  terms: string[];
  /**
   * The query's vector, or a promise of it while the query is being embedded: the keyword arm runs meanwhile, the
   * vector arm once it resolves. Absent, or resolving to undefined: the vector arm does not run. A promise that
   * rejects fails the search with its error (the keyword hits are dropped).
   */
  vector?: Float32Array | PromiseLike<Float32Array | undefined>;
  /** How many hits each arm returns at most. */
  limit: number;
  /** The neighbouring turns; absent: none are looked up. */
  neighbours?: NeighbourRequest;
}

/** What the two arms found: hits best first, and the row of every hit. */
export interface FoundCandidates {
  /** Best first; `score` is the engine's BM25-like score (higher is better). */
  keywordHits: KeywordHit[];
  /** Best first, raw cosine similarity in [-1, 1]. */
  vectorHits: VectorHit[];
  /** The row of every hit, each once, in any order (a hit whose row went meanwhile has none). */
  rows: MemoryRecord[];
}

/** The answer of `searchCandidates`. */
export interface CandidateSet extends FoundCandidates {
  /** The neighbours of the ids `neighbours.around` named, each once, in any order; an id it named appears only when it neighbours another. */
  neighbours: MemoryRecord[];
}

/** A keyword-arm hit: rows in best-first order; `score` is the engine's BM25-like score (higher is better). */
export interface KeywordHit {
  id: string;
  score: number;
}

/** A vector-arm hit: rows in best-first order with raw cosine similarity in [-1, 1]. */
export interface VectorHit {
  id: string;
  similarity: number;
}

/** One content-hash lookup of `findDocIdsByHashes`. */
export interface HashLookup {
  scope: Scope;
  agentId: string;
  contentHash: string;
}

export interface KnowledgeStoreCapabilities {
  keyword: boolean;
  vector: boolean;
  /** True when the vector arm is exact (brute force); false for an approximate index. */
  exactVector: boolean;
  /**
   * How the keyword arm's scores are scaled by text length (BM25's b, or PostgreSQL's log-length normalisation), so that
   * the ranking can take it out; absent when the scores do not depend on length.
   */
  keywordLengthNorm?: KeywordLengthNorm;
}

/** Scan cursor for export and re-embedding: rows ordered by (createdAt, id). */
export interface ScanOptions {
  space?: string;
  after?: { createdAt: string; id: string };
  limit: number;
}

/** What `deleteByAgent` removed: documents, their chunks, version rows and rating rows. */
export interface DeletedByAgent {
  documents: number;
  chunks: number;
  versions: number;
  ratings: number;
}

/** Counts for the inspector and `mem stats`. */
export interface KnowledgeStats {
  documents: number;
  chunks: number;
  bySource: Record<string, number>;
  byScope: Record<string, number>;
}

/** Closing a memory (docs/formation.md): every chunk gets these three; the memory stays, left out of what is current. */
export interface DocumentClose {
  docId: string;
  /** World time it stopped holding (exclusive). */
  validTo: string;
  /** System time it was closed. */
  invalidatedAt: string;
  /** The memory that replaces it, or null when nothing does (invalidated). */
  supersededBy: string | null;
}

/** What formation decided about one candidate. */
export type FormationDecisionName = 'add' | 'update' | 'invalidate' | 'noop';

/** One line of the decision log (docs/formation.md): why a formed memory is believed, or was closed. */
export interface FormationEntry {
  id: string;
  space: string;
  /** The memory the decision made (add, update), closed (invalidate) or found known (noop). */
  memoryId: string;
  decision: FormationDecisionName;
  /** The memory an update superseded (null otherwise). */
  previousId: string | null;
  /** The candidate as the extractor said it. */
  text: string;
  /** Ids of the messages it rests on. */
  evidence: string[];
  /** The extractor (`offline`, `llm`), its model (null: none) and prompt version. */
  extractor: string;
  model: string | null;
  promptVersion: string;
  /** The current memories it was compared with. */
  related: string[];
  /** The agent whose conversation it came from, and the end user it is about (null: none). */
  agentId: string;
  userId: string | null;
  at: string;
}

/**
 * One distillation's changes, written atomically: the new memories, the memories they close, the log lines. A close
 * of a memory that is already closed (or gone) fails the whole write with `CONFLICT` (another distillation got there
 * first): nothing is written.
 */
export interface FormationWrite {
  insert: MemoryRecord[][];
  close: DocumentClose[];
  log: FormationEntry[];
}

/**
 * The write role of the knowledge port: new documents, content edits, moves and deletions. Multi-row writes are atomic.
 * Errors: `KEY_TAKEN` when a document's (space, scope, agentId, key) is held by another document, `CONFLICT` when
 * `expectedVersion` does not match or a chunk id exists.
 */
export interface KnowledgeWriter {
  /** Insert all chunks of a new document in one transaction. */
  insertDocument(chunks: MemoryRecord[]): Promise<void>;
  /**
   * Insert several new documents (each given as all its chunks) in one atomic write: one transaction, or one
   * append. The rules of `insertDocument` hold for every document, also between documents of the batch
   * (`KEY_TAKEN` when a key is held, `CONFLICT` when a chunk id exists); when any of them fails nothing is written.
   */
  insertDocuments(docs: MemoryRecord[][]): Promise<void>;
  /**
   * Replace every chunk of a document (content edit) and write the version row, if `expectedVersion` holds. The
   * counters (alpha, beta, access count, last access) stay as stored at the time of the write, whatever `chunks`
   * carry: ratings and reads do not change the version, so one may land between the editor's read and this write.
   */
  replaceDocument(
    space: string,
    docId: string,
    chunks: MemoryRecord[],
    version: MemoryVersion,
    expectedVersion: number,
  ): Promise<void>;
  /** Move every chunk of a document to `newKey` (and set `expiresAt` when given) and write the version row. */
  moveDocument(
    space: string,
    docId: string,
    change: { newKey: string; expiresAt?: string | null; updatedAt: string },
    version: MemoryVersion,
    expectedVersion: number,
  ): Promise<void>;
  /**
   * Formation's write (see `FormationWrite`): insert, close and log in one transaction. The rules of
   * `insertDocuments` hold for the inserts.
   */
  form(space: string, write: FormationWrite): Promise<void>;
  /** Delete a document with its chunks, versions, ratings and decision-log lines. Returns the number of chunks removed. */
  deleteDocument(space: string, docId: string): Promise<number>;
  /**
   * `forget` an agent: delete every document the agent owns in the space (agent and swarm scope) with its chunks,
   * versions, ratings, decision-log lines and every derived row (tags, keyword index, embeddings, access counters), in one transaction
   * where the engine has them. Other agents' documents and other spaces are untouched. Reports what went.
   */
  deleteByAgent(space: string, agentId: string): Promise<DeletedByAgent>;
  /** Delete expired documents (expiresAt <= now) as `deleteDocument` does. Returns chunks removed. */
  deleteExpired(now: string, space?: string): Promise<number>;
}

/** The read role of the knowledge port: chunks, documents, lookups by key and content hash, scans and versions. */
export interface KnowledgeReader {
  getChunk(space: string, id: string): Promise<MemoryRecord | null>;
  /** All chunks of a document, ordered by chunkIndex; empty when unknown. */
  getDocument(space: string, docId: string): Promise<MemoryRecord[]>;
  getChunks(space: string, ids: string[]): Promise<MemoryRecord[]>;
  findDocIdByKey(space: string, scope: Scope, agentId: string, key: string): Promise<string | null>;
  /**
   * Content-hash lookups, many in one round trip: every store (single or batch) asks through it, once per call. For
   * each lookup, the document of the oldest chunk (createdAt, then insertion order) of that scope and agent in the space
   * whose content hash matches, or null; answers in the order of `lookups`.
   */
  findDocIdsByHashes(space: string, lookups: readonly HashLookup[]): Promise<(string | null)[]>;
  /** Rows ordered by (createdAt, id) after the cursor: export and re-embedding. */
  scan(options: ScanOptions): Promise<MemoryRecord[]>;
  listVersions(space: string, docId: string): Promise<MemoryVersion[]>;
  /** The decision-log lines of these memories (by `memoryId`), oldest first (at, then id). */
  formationLog(space: string, memoryIds: readonly string[]): Promise<FormationEntry[]>;
}

/** The search role of the knowledge port: one call per search for its candidates, and what the arms can do. The core ranks. */
export interface KnowledgeSearcher {
  readonly capabilities: KnowledgeStoreCapabilities;
  /**
   * Both arms, the rows of their hits and the neighbours of the ids `neighbours.around` names, under `query.filter`
   * (see `CandidateQuery`). `searchCandidatesWith` does the sequencing from the store's own arms.
   */
  searchCandidates(query: CandidateQuery): Promise<CandidateSet>;
}

/** The counters role of the knowledge port: accesses and ratings, which change no version. */
export interface KnowledgeCounters {
  /** Count one access on every chunk of the document. */
  recordAccess(space: string, docId: string, at: string): Promise<void>;
  /**
   * Record a rating, atomically with its effect on the counters of every chunk (`ALREADY_RATED` when the memory was
   * already rated in `taskId`). A `counted` rating first takes back every earlier counted rating of the same rater
   * (`agentId`) on the memory (1 off alpha or beta each, the rows kept with `counted` false), then adds 1 to alpha
   * (useful) or beta (useless): at most one vote per (memory, rater) counts, the latest. A rating with `counted`
   * false is stored and changes no counter. Returns how many earlier votes were taken back.
   */
  addRating(rating: Rating): Promise<RatingOutcome>;
}

/**
 * The admin role of the knowledge port: the embedding space, re-embedding, statistics and the connection; `eraser`
 * when its storage keeps deleted rows on disk until erased (see `Eraser`).
 */
export interface KnowledgeAdmin extends Erasable {
  readonly name: string;
  /** The embedder that produced the stored vectors, or null before the first vector is stored. */
  getEmbeddingInfo(): Promise<EmbeddingInfo | null>;
  setEmbeddingInfo(info: EmbeddingInfo): Promise<void>;
  /** Write re-computed vectors (`reindex`), recording `info` as their embedder. */
  updateEmbeddings(updates: { id: string; embedding: Float32Array }[], info: EmbeddingInfo): Promise<void>;
  stats(space: string): Promise<KnowledgeStats>;
  close(): Promise<void>;
}

/**
 * Storage of knowledge memories: the union of its roles (write, read, search, counters, admin). Adapters store and
 * retrieve candidates; the core ranks and decides. Every method is scoped by space. Services that need only some
 * roles take only those (e.g. `KnowledgeReader & KnowledgeSearcher`).
 * Errors: those of each role, `ALREADY_RATED` for a second rating in one task, `STORE_UNAVAILABLE` (prefixed by the
 * adapter name) for driver failures.
 */
export interface KnowledgeStore
  extends KnowledgeWriter,
    KnowledgeReader,
    KnowledgeSearcher,
    KnowledgeCounters,
    KnowledgeAdmin {}
