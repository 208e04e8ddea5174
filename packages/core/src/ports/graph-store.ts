import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../types-graph.js';

/**
 * Which graph records a read sees. Visibility, as for memories: scope `swarm`, plus scope `agent` owned by
 * `viewerAgentId`; records about no user, plus records about `userId` when given; with `everyOwner`, every record of
 * the space whatever its scope, agent and user (a lead's export, an import's checks). Validity: what is current at `now`
 * (`invalidatedAt` null, `validTo` null or after `now`, an entity not merged), or the records that held at `asOf`
 * (`coalesce(validFrom, recordedAt) <= asOf < validTo`, recorded by then and not closed before), or every record
 * with `history`.
 */
export interface GraphView {
  viewerAgentId: string;
  userId?: string | undefined;
  everyOwner?: boolean | undefined;
  now: string;
  asOf?: string | undefined;
  history?: boolean | undefined;
}

/** Which entities a read asks for: by id, by resolution key (name or alias, normalised), by word, or a page of all. */
export type EntityQuery =
  | { ids: readonly string[] }
  | { keys: readonly string[] }
  /** Entities whose `searchText` holds one of the (lower-case) words, at most `limit`, oldest first. */
  | { words: readonly string[]; limit: number }
  /** Every visible entity ordered by id, after the id `after` (null: from the first), at most `limit`. */
  | { after: string | null; limit: number };

/** Which relations a read asks for: touching entities (`out`: from them, `in`: to them), by id, or a page of all. */
export type RelationQuery =
  | { entityIds: readonly string[]; direction: 'out' | 'in' | 'both' }
  | { ids: readonly string[] }
  | { after: string | null; limit: number };

/** Records by their own ids (observations, log lines), instead of by the entities or records they are about. */
export interface ByIds {
  ids: readonly string[];
}

/** Records to write together: each upserted by id (a later write of an id replaces its row), the log appended. */
export interface GraphWrite {
  entities?: readonly EntityRecord[];
  observations?: readonly ObservationRecord[];
  relations?: readonly RelationRecord[];
  log?: readonly GraphLogEntry[];
}

/** What `deleteOwner` removed. */
export interface GraphDeleted {
  entities: number;
  observations: number;
  relations: number;
  log: number;
}

/**
 * The memory graph's storage (docs/graph.md). Every method is scoped by space. The core decides everything (ids,
 * keys, resolution, times, the log; inputs are checked before they reach here); a store keeps rows and answers the
 * reads inside its queries, with indexes on resolution keys and on both ends of relations.
 */
export interface GraphStore {
  readonly name: string;
  /** All of it or nothing: one transaction. */
  write(space: string, batch: GraphWrite): Promise<void>;
  /** Entities visible to `view`; for `ids` and `keys` in no particular order, the others as said. */
  entities(space: string, query: EntityQuery, view: GraphView): Promise<EntityRecord[]>;
  /**
   * Resolution keys that start with one of `prefixes` (the candidates of resolution's similar-name step): at most
   * `limit` per prefix, in key order, whatever their entity's visibility (the caller reads the entities it keeps).
   */
  keys(space: string, prefixes: readonly string[], limit: number): Promise<{ key: string; entityId: string }[]>;
  /**
   * The observations of those entities (or those observations, `{ids}`) that hold in `view` (validity by `recordedAt` /
   * `invalidatedAt`; an observation is seen with its entity, so no owner test), oldest first.
   */
  observations(space: string, of: readonly string[] | ByIds, view: GraphView): Promise<ObservationRecord[]>;
  /** Relations visible to `view`; for `entityIds` and `ids` in no particular order, a page ordered by id. */
  relations(space: string, query: RelationQuery, view: GraphView): Promise<RelationRecord[]>;
  /** The log lines about those records (or those log lines, `{ids}`), oldest first. */
  log(space: string, of: readonly string[] | ByIds): Promise<GraphLogEntry[]>;
  /**
   * Delete for good (forget) every record owned by `agentId`, or about `userId`, in the space — entities with their
   * observations and the relations touching them, relations, observations that agent added, and their log lines.
   */
  deleteOwner(space: string, owner: { agentId: string } | { userId: string }): Promise<GraphDeleted>;
  /**
   * Delete for good (forget by message) every record whose evidence lies entirely within `messageIds` (`onlyOn`),
   * with what `deleteOwner` removes with an entity, and their log lines. Records that other messages also support stay.
   */
  deleteByEvidence(space: string, messageIds: readonly string[]): Promise<GraphDeleted>;
}
