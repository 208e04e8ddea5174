/** The records of the memory graph (docs/graph.md): entities, their observations, relations, and the graph's log. */
import type { Scope } from './types.js';

/**
 * The times every graph record carries, as a formed memory does. World time: `validFrom` (null: from `recordedAt`)
 * and `validTo` (exclusive; null: still holds). System time: `recordedAt` and `invalidatedAt` (when it was closed). A
 * closed record is kept; it is only left out of what is current. `evidence`: the ids of the messages it rests on.
 */
export interface GraphTimes {
  validFrom: string | null;
  validTo: string | null;
  recordedAt: string;
  invalidatedAt: string | null;
  evidence: string[];
}

/** Who a graph record belongs to, as a memory: its space, scope and owner, and the end user it is about. */
export interface GraphOwner {
  id: string;
  space: string;
  scope: Scope;
  /** The agent that wrote it (its owner at scope `agent`). */
  agentId: string;
  /** The end user it is about: seen only by principals acting for that user. */
  userId: string | null;
}

/** A thing the graph knows: a person, an organisation, a place, a project… */
export interface EntityRecord extends GraphOwner, GraphTimes {
  name: string;
  entityType: string;
  /** Other names it goes by (each resolves to it). */
  aliases: string[];
  /** The normalised name and aliases (`entityKey`): what resolution looks up. */
  keys: string[];
  /** Lower-case text a word search matches: name, aliases, type and current observations. */
  searchText: string;
  /** Set when the entity was merged into another one: it is then left out of what is current (undo: unmerge). */
  mergedInto: string | null;
  updatedAt: string;
}

/** One observation about an entity (`"Speaks Portuguese"`). Deleting one closes it. */
export interface ObservationRecord {
  id: string;
  space: string;
  entityId: string;
  text: string;
  agentId: string;
  recordedAt: string;
  invalidatedAt: string | null;
  evidence: string[];
}

/** A directed, typed edge: `from` —relationType→ `to` (entity ids). Deleting one closes it. */
export interface RelationRecord extends GraphOwner, GraphTimes {
  fromId: string;
  relationType: string;
  toId: string;
}

/** What happened to a graph record. */
export type GraphDecision = 'add' | 'noop' | 'update' | 'invalidate' | 'merge' | 'unmerge';

/** One line of the graph's log: a decision about a record, who made it, on what evidence. */
export interface GraphLogEntry {
  id: string;
  space: string;
  /** The entity, relation or observation it is about. */
  recordId: string;
  kind: 'entity' | 'relation' | 'observation';
  decision: GraphDecision;
  at: string;
  /** The operation or extractor that decided (`create_entities`, `graph-merge`, `offline-statements@3`…). */
  by: string;
  agentId: string;
  evidence: string[];
  /** What else is worth keeping: the name matched, the step of resolution that matched it, the entity merged… */
  detail: Record<string, unknown>;
}
