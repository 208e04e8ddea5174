import type { FormationCandidate } from '../domain/formation.js';
import type { TokenUsage } from './summarizer.js';
import type { TranscriptMessage } from './transcript-store.js';

/** A message handed to an extractor: a transcript message with its id, and whether it came from outside. */
export interface DistillMessage extends TranscriptMessage {
  id: string;
  /** Content that came from outside the conversation (a tool result, a fetched page): never read unless allowed. */
  untrusted?: boolean;
}

/** A current memory an extractor is shown so that it can say a proposal is about it. */
export interface RelatedMemory {
  id: string;
  subject: string;
  attribute: string;
  value: string;
  statement: string;
}

/** A memory an extractor proposes: a formation candidate with its world time and the messages it rests on. */
export interface ProposedMemory extends FormationCandidate {
  /** What kind of thing it says (`preference`, `residence`, `plan`…). */
  kind: string;
  /** World time it starts / stops holding (ISO dates), when the messages say. */
  validFrom: string | null;
  validTo: string | null;
  /** Ids of the messages it rests on (at least one). */
  evidence: string[];
  /**
   * The named things the memory mentions besides its subject (people, pets, places, organisations…), as an extractor
   * that can tell names them; absent: the graph takes what the attribute says (`residence` → a place…).
   */
  entities?: ProposedEntity[];
  /** How the subject (`user`) and those entities are linked by it; ends are `user` or names of `entities`. */
  relations?: ProposedRelation[];
}

/** A named thing a proposal mentions. */
export interface ProposedEntity {
  name: string;
  /** One lowercase word: `person`, `pet`, `place`, `organization`, `product`… */
  entityType: string;
}

/** An edge a proposal states: `from` and `to` are `user` (the proposal's subject) or names of its entities. */
export interface ProposedRelation {
  from: string;
  relationType: string;
  to: string;
}

/** Something an extractor could not turn into a proposal, reported instead of dropped. */
export interface ExtractionFailure {
  /** `bad-json`, `bad-shape`, `unknown-alias`, `refused`, `timeout`, `endpoint`… */
  code: string;
  message: string;
}

export interface StatementExtractionInput {
  messages: readonly DistillMessage[];
  /** Current memories of the same scope that the messages may be about, most related first. */
  related: readonly RelatedMemory[];
  /** Read untrusted messages too (default false: they are skipped). */
  allowUntrusted?: boolean;
}

export interface StatementExtraction {
  /** In the order the messages say them: a later proposal about the same attribute supersedes an earlier one. */
  proposals: ProposedMemory[];
  failures: ExtractionFailure[];
  /** Tokens spent (an extractor that calls no model may leave it out: zero). */
  usage?: TokenUsage;
}

/**
 * Turns conversation messages into proposed memories (memory that forms itself). The offline extractor of
 * @mem/core reads first-person statements without a model; an LLM-backed one implements the same port. An
 * extractor writes nothing: formation decides what each proposal does (`decideFormation`) and the store keeps it.
 */
export interface StatementExtractor {
  /** Names the extractor in the decision log, e.g. `offline` or `llm:gpt-4o-mini`. */
  readonly id: string;
  /** The model behind it, or null for none. */
  readonly model: string | null;
  /** Changes whenever what the extractor is told or how it reads changes (logged with every decision). */
  readonly promptVersion: string;
  extract(input: StatementExtractionInput): Promise<StatementExtraction>;
}
