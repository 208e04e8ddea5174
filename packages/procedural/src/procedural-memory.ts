import {
  MemError,
  type Procedure,
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
  type CandidateWrite,
  DEFAULT_CANDIDATE_SEARCH,
  DEFAULT_PROCEDURE_RANKING,
  type ProceduralMemory as ProceduralMemoryPort,
  type ProcedureRankingOptions,
  type ProcedureStore,
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

/** How a procedure is written: checked by `procedureInput`, its defaults filled in; its steps may hold no secret. */
const PROCEDURE_WRITE: CandidateWrite<typeof procedureInput, Procedure, 'procedure'> = {
  key: 'procedure',
  schema: procedureInput,
  text: procedureSearchText,
  check: (procedure) => assertNoSecrets(JSON.stringify(procedure.steps, null, 1), 'procedure steps'),
  build: (parsed, now, { id, tags, metadata }) => ({
    id,
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
    tags,
    metadata,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }),
};

/**
 * Procedural memory (docs/structured.md) over a ProcedureStore and an optional Embedder: store what worked (`store`,
 * `storeReport`: id filled in when missing, secrets anywhere refused), suggest procedures for a situation ranked by
 * relevance combined with success rate (`rankProcedures` of @mem/core/adapter, the same formula for every backend),
 * and reinforce them with outcomes counted atomically by the store. Every method is scoped by space.
 */
export class ProceduralMemory
  extends CandidateMemory<ProcedureStore, ProceduralMemoryOptions, Procedure, typeof procedureInput, 'procedure'>
  implements ProceduralMemoryPort
{
  constructor(deps: ProceduralMemoryDeps) {
    super(deps, DEFAULT_PROCEDURAL_OPTIONS, PROCEDURE_WRITE);
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
