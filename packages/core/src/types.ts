/** Shared record types of the knowledge memory (docs/keys-and-roots.md). */

export type Scope = 'agent' | 'swarm';
export type Source = 'manual' | 'file_index' | 'task_completion' | 'session_summary';
export type Role = 'lead' | 'worker';

export const SCOPES: readonly Scope[] = ['agent', 'swarm'];
export const SOURCES: readonly Source[] = ['manual', 'file_index', 'task_completion', 'session_summary'];
export const ROLES: readonly Role[] = ['lead', 'worker'];

/** Who acts: the space (tenant), the agent, and its role. */
export interface Principal {
  space: string;
  agentId: string;
  role: Role;
}

/** What every view of a memory carries: its address, its text and who owns it. */
export interface MemoryFields {
  key: string;
  name: string;
  content: string;
  scope: Scope;
  source: Source;
  tags: string[];
  agentId: string;
}

/** When a memory was written, last changed, and when it expires (null: never). */
export interface MemoryTimes {
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}

/** How a memory has been used: its reads and the Beta prior its ratings move. */
export interface MemoryUse {
  accessCount: number;
  lastAccessedAt: string | null;
  alpha: number;
  beta: number;
}

/**
 * One stored chunk. A document (one `memory-store` call) is one or more chunks sharing `docId`, key and name.
 * The document's id is `docId`, which is also the id of its first chunk.
 */
export interface MemoryRecord extends MemoryFields, MemoryTimes, MemoryUse {
  id: string;
  docId: string;
  space: string;
  /** The chunk text as searched and shown: heading path, overlap with the previous piece, then the body. */
  content: string;
  /**
   * Where this chunk's own slice of the original document starts inside `content` (0 for a single chunk).
   * Joining `content.slice(bodyStart)` of every chunk in order gives back the original document exactly.
   */
  bodyStart: number;
  chunkIndex: number;
  chunkCount: number;
  embedding: Float32Array | null;
  embeddingModel: string | null;
  /** Hash of the whole document's content (all chunks carry the same value). */
  contentHash: string;
  version: number;
}

/** A version row: what a document was before an edit. History is never lost. */
export interface MemoryVersion {
  docId: string;
  space: string;
  version: number;
  oldContent: string;
  oldKey: string;
  intent: string;
  agentId: string;
  at: string;
}

/** One vote on a memory. `agentId` is the rater. */
export interface Rating {
  docId: string;
  space: string;
  taskId: string;
  useful: boolean;
  note: string | null;
  /** The rater. */
  agentId: string;
  at: string;
  /**
   * Whether the vote moves alpha/beta. The core sets false for the author's votes on its own memory (recorded, not
   * counted). A counted vote replaces the rater's earlier counted votes on the memory: at most one counts per rater.
   */
  counted: boolean;
}

/** What `addRating` did with the counters. */
export interface RatingOutcome {
  /** Earlier counted votes of the same rater on the memory that this vote replaced (0 or more; 1 in steady state). */
  replaced: number;
}

export interface EmbeddingInfo {
  model: string;
  dimension: number;
}
