import type { TokenUsage } from './summarizer.js';

/** A known entity a model is shown as a possible match of a new name. */
export interface EntityCandidate {
  name: string;
  entityType: string;
  aliases: string[];
  /** Its current observations (a few, newest last). */
  observations: string[];
}

export interface EntityResolutionInput {
  /** The new entity's name, type and observations. */
  name: string;
  entityType: string;
  observations: string[];
  /** Known entities of the same type the rules did not join to it, most alike first. */
  candidates: EntityCandidate[];
}

export interface EntityResolution {
  /** The index in `candidates` of the entity the name means, or null: none of them (a new entity). */
  match: number | null;
  usage?: TokenUsage;
}

/**
 * The last step of entity resolution (docs/graph.md): a model that says whether a new name means one of a few known
 * entities the rules left apart ("Bob Smith" / "Robert Smith"). @mem/summarizer-llm ships one over any
 * OpenAI-compatible chat model. A resolver that fails leaves the new entity as it is (logged); it never blocks a write.
 */
export interface EntityResolver {
  /** Names the resolver in the graph's log, e.g. `llm:gpt-4o-mini`. */
  readonly id: string;
  resolve(input: EntityResolutionInput): Promise<EntityResolution>;
}
