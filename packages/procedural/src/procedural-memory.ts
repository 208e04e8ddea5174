import {
  MemError,
  type Procedure,
  type ProcedureInput,
  procedureInput,
  procedureOutcomeInput,
  procedureSuggestInput,
  refSchema,
} from '@mem/core';
import {
  assertNoSecrets,
  CandidateMemory,
  type CandidateMemoryDeps,
  type CandidateSearchOptions,
  DEFAULT_CANDIDATE_SEARCH,
  DEFAULT_PROCEDURE_RANKING,
  newId,
  type ProceduralMemory as ProceduralMemoryPort,
  type ProcedureRankingOptions,
  type ProcedureStore,
  type ProcedureStoreReport,
  type ProcedureSuggestion,
  type ProcedureSuggestReport,
  procedureSearchText,
  rankProcedures,
} from '@mem/core/adapter';

/** Every number of procedural memory, with defaults (docs/structured.md). */
export interface ProceduralMemoryOptions extends CandidateSearchOptions {
  /** `suggest` without topK (default 3). */
  suggestTopK: number;
  /** How relevance and success rate combine (see `rankProcedures` of @mem/core/adapter). */
  ranking: ProcedureRankingOptions;
}

export const DEFAULT_PROCEDURAL_OPTIONS: ProceduralMemoryOptions = {
  ...DEFAULT_CANDIDATE_SEARCH,
  suggestTopK: 3,
  ranking: DEFAULT_PROCEDURE_RANKING,
};

export type ProceduralMemoryDeps = CandidateMemoryDeps<ProcedureStore, ProceduralMemoryOptions>;

/**
 * Procedural memory (docs/structured.md) over a ProcedureStore and an optional Embedder: store what worked, suggest procedures
 * for a situation ranked by relevance combined with success rate (`rankProcedures` of @mem/core/adapter, the same formula
 * for every backend), and reinforce them with outcomes counted atomically by the store. Every method is scoped by space.
 */
export class ProceduralMemory
  extends CandidateMemory<ProcedureStore, ProceduralMemoryOptions, Procedure>
  implements ProceduralMemoryPort
{
  constructor(deps: ProceduralMemoryDeps) {
    super(deps, DEFAULT_PROCEDURAL_OPTIONS);
  }

  /** Validate and store a procedure (id filled in when missing). Secrets anywhere in it are refused. */
  async store(space: string, input: ProcedureInput): Promise<Procedure> {
    return (await this.storeReport(space, input)).procedure;
  }

  /** `store`, also reporting the tokens the embedder spent on the procedure text (zero without one that reports usage). */
  async storeReport(space: string, input: ProcedureInput): Promise<ProcedureStoreReport> {
    const parsed = this.parse(space, procedureInput, 'procedure store', input);
    const now = this.clock.now().toISOString();
    const procedure: Procedure = {
      id: parsed.id ?? newId(this.clock.now()),
      name: parsed.name,
      description: parsed.description ?? '',
      trigger: parsed.trigger ?? '',
      steps: parsed.steps.map((s) => ({
        toolName: s.toolName,
        argsTemplate: s.argsTemplate ?? {},
        expectedOutcome: s.expectedOutcome ?? '',
      })),
      successCount: parsed.successCount ?? 0,
      failureCount: parsed.failureCount ?? 0,
      tags: [...new Set(parsed.tags ?? [])],
      metadata: parsed.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    const text = procedureSearchText(procedure);
    assertNoSecrets(text, 'procedure');
    assertNoSecrets(JSON.stringify(procedure.steps, null, 1), 'procedure steps');
    assertNoSecrets(JSON.stringify(procedure.metadata, null, 1), 'procedure metadata');
    return { procedure, usage: await this.insertEmbedded(space, procedure, text) };
  }

  /**
   * Procedures for a situation, best first. Candidates come from both arms (`candidateMultiplier × topK` each) and
   * are ranked by `rankProcedures` of @mem/core/adapter: a score-based relevance combined with the success rate.
   */
  async suggest(space: string, query: string, topK?: number): Promise<ProcedureSuggestion[]> {
    return (await this.suggestReport(space, query, topK)).results;
  }

  /** `suggest`, also reporting the tokens the embedder spent on the query (zero without one that reports usage). */
  async suggestReport(space: string, query: string, topK?: number): Promise<ProcedureSuggestReport> {
    const { found, arms, usage, k } = await this.findRecords(
      space,
      procedureSuggestInput,
      'procedure suggest',
      query,
      topK,
      this.options.suggestTopK,
      false,
    );
    const candidates = found.map(({ candidate: c, record: procedure }) => ({
      id: c.id,
      keywordScore: c.keywordScore,
      similarity: c.similarity,
      keywordRank: c.keywordRank,
      vectorRank: c.vectorRank,
      procedure,
      successCount: procedure.successCount,
      failureCount: procedure.failureCount,
    }));
    const results = rankProcedures(candidates, arms, this.options.ranking)
      .slice(0, k)
      .map((c) => ({
        procedure: c.procedure,
        successRate: c.successRate,
        relevance: c.relevance,
        score: c.score,
        keywordRank: c.keywordRank,
        vectorRank: c.vectorRank,
        similarity: c.similarity,
      }));
    return { results, usage };
  }

  /** Count one use (atomic in the store: concurrent reports from several processes are all counted). */
  async recordOutcome(space: string, id: string, success: boolean): Promise<Procedure> {
    const input = this.parse(space, procedureOutcomeInput, 'procedure outcome', { id, success });
    return this.records.incrementOutcome(space, input.id, input.success, this.clock.now().toISOString());
  }

  async get(space: string, id: string): Promise<Procedure> {
    const ref = this.parse(space, refSchema, 'procedure get', id);
    const procedure = await this.records.get(space, ref);
    if (!procedure)
      throw new MemError(
        'NOT_FOUND',
        `No procedure with id "${ref}" in space "${space}". Use suggest or list to find its id.`,
      );
    return procedure;
  }
}

export function createProceduralMemory(deps: ProceduralMemoryDeps): ProceduralMemory {
  return new ProceduralMemory(deps);
}
