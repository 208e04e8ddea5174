/** Shared record types of the knowledge memory (docs/keys-and-roots.md). */

export type Scope = 'agent' | 'swarm';
/** Where a memory came from; `distilled`: formed from a conversation (docs/formation.md). */
export type Source = 'manual' | 'file_index' | 'task_completion' | 'session_summary' | 'distilled';
export type Role = 'lead' | 'worker';

export const SCOPES: readonly Scope[] = ['agent', 'swarm'];
export const SOURCES = [
  'manual',
  'file_index',
  'task_completion',
  'session_summary',
  'distilled',
] as const satisfies readonly Source[];
export const ROLES: readonly Role[] = ['lead', 'worker'];

/**
 * Who acts: the space (tenant), the agent, its role and, when the agent serves one, the end user. Memories about a user
 * (`userId`) are seen only by principals acting for that user, by any agent of the space.
 */
export interface Principal {
  space: string;
  agentId: string;
  role: Role;
  userId?: string | undefined;
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
 * What a formed memory says, in the form formation compares (docs/formation.md): who it is about, what about them (the
 * unit of supersession), whether that holds one value at a time, the value and which way. Null on a memory written
 * on purpose.
 */
export interface MemoryClaim {
  /** What kind of thing it says (`preference`, `residence`, `plan`…). */
  kind: string;
  /** Who it is about (`user`). */
  subject: string;
  /** What about them (`residence`, `preference.flight`): only a memory with the same subject and attribute is superseded. */
  attribute: string;
  single: boolean;
  value: string;
  stance: 'for' | 'against';
  /** The memory graph's entities it is about, by name (its subject's first); absent when it names none. */
  entities?: string[];
}

/**
 * A memory's two times and its place in a supersede chain (docs/formation.md). World time: `validFrom` (null: from
 * `createdAt`) and `validTo` (exclusive; null: still holds). System time: `createdAt` is when the memory was recorded,
 * `invalidatedAt` when it was closed. A closed memory is kept; it is only left out of what is current.
 */
export interface MemoryValidity {
  validFrom: string | null;
  validTo: string | null;
  invalidatedAt: string | null;
  /** The memory this one replaced, and the one that replaced it (null: none). */
  supersedes: string | null;
  supersededBy: string | null;
  /** The end user it is about: recalled for that user by any agent of the space, never for another user. */
  userId: string | null;
  claim: MemoryClaim | null;
}

/** The validity of a memory written on purpose: valid from its creation, about no user, no claim. */
export const OPEN_VALIDITY: Readonly<MemoryValidity> = Object.freeze({
  validFrom: null,
  validTo: null,
  invalidatedAt: null,
  supersedes: null,
  supersededBy: null,
  userId: null,
  claim: null,
});

/**
 * One stored chunk. A document (one `memory-store` call) is one or more chunks sharing `docId`, key and name.
 * The document's id is `docId`, which is also the id of its first chunk.
 */
export interface MemoryRecord extends MemoryFields, MemoryTimes, MemoryUse, MemoryValidity {
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
