/**
 * A memory graph for a LoCoMo-format data set (issue 34: recall that follows links): each speaker's turns read by the
 * offline statement extractor of @mem/core, and what each proposal names (`claimGraph`: the place someone lives in or
 * comes from, their employer, the people and pets they name) written through the graph service, the speaker's own
 * entity named by the speaker. The graph's records are swarm-scoped and about no user, so the bench's searches see
 * them; their evidence is the turn's dia id. The product path (distill with a user id) makes the same records.
 */
import {
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  type KnowledgeOptions,
  type Principal,
  type StackOptions,
} from '@mem/core';
import {
  claimGraph,
  createOfflineStatementExtractor,
  type GraphStore,
  type StatementExtractor,
} from '@mem/core/adapter';
import { createLlmStatementExtractor } from '@mem/summarizer-llm';
import { type Candidate, type CrossValidation, crossValidate } from './cross-validate.js';
import type { Conversation } from './locomo.js';
import type { QuestionOutcome, Summary } from './metrics.js';

export interface LocomoGraph {
  graph: GraphStore;
  entities: number;
  relations: number;
  seconds: number;
}

/** The speaker and text of a turn's content (`<speaker>: <text>`). */
function said(content: string): { speaker: string; text: string } | null {
  const i = content.indexOf(': ');
  return i <= 0 || i > 60 ? null : { speaker: content.slice(0, i), text: content.slice(i + 2) };
}

/** The graph of every turn, read by `extractor` (default: the offline one; `--graph-llm-url` gives an LLM's). */
export async function locomoGraph(
  conversations: readonly Conversation[],
  extractor: StatementExtractor = createOfflineStatementExtractor(),
): Promise<LocomoGraph> {
  const t0 = performance.now();
  const structured = createInMemoryStructuredStores();
  const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), structured: { graph: structured.graph } });
  const graph = stack.service('graph');
  let entities = 0;
  let relations = 0;
  for (const c of conversations) {
    const p: Principal = { space: c.id, agentId: 'bench', role: 'worker' };
    for (const t of c.turns) {
      const turn = said(t.content);
      if (!turn) continue;
      const { proposals } = await extractor.extract({
        messages: [{ id: t.diaId, role: 'user', content: turn.text, at: t.createdAt }],
        related: [],
      });
      for (const proposal of proposals) {
        if (proposal.polarity !== 'holds') continue;
        const subject = proposal.subject === 'user' ? turn.speaker : proposal.subject;
        const g = claimGraph(null, { ...proposal, subject });
        if (g.entities.length === 0) continue;
        const o = { scope: 'swarm' as const, evidence: [t.diaId], by: 'bench-offline', validFrom: t.createdAt };
        const observed = g.entities.map((e, i) => ({ ...e, observations: i === 0 ? [] : [proposal.statement] }));
        entities += (await graph.createEntities(p, { entities: observed }, o)).entities.length;
        const edges = g.edges.map((e) => ({ from: e.from, to: e.to, relationType: e.relationType }));
        if (edges.length > 0) relations += (await graph.createRelations(p, { relations: edges }, o)).relations.length;
      }
    }
  }
  return { graph: structured.graph!, entities, relations, seconds: (performance.now() - t0) / 1000 };
}

/** What a stack's evaluation gives back: the summary and each question's outcome. */
type Evaluated = Summary & {
  name: string;
  search_ms: { p50: number; p95: number };
  ingest_s: number;
  outcomes?: QuestionOutcome[];
};

/**
 * `mem+graph`: the default stack with the graph of every turn and recall that follows links at its defaults; with
 * `cv`, also `mem+graph (cv)`: hops, weight and depth chosen leave one conversation out among a grid that holds
 * hops 0 (the graph off: mem itself).
 */
export async function graphStacks<R extends Evaluated>(
  conversations: readonly Conversation[],
  evaluate: (label: string, config: Partial<KnowledgeOptions>, models: Pick<StackOptions, 'structured'>) => Promise<R>,
  cvToo: boolean,
  log: (line: string) => void,
  extractor?: StatementExtractor,
): Promise<{ results: Evaluated[]; note: string; fitted: CrossValidation | undefined }> {
  const by = extractor ? extractor.id : 'the offline extractor';
  log(`memory graph: ${by} over every turn…`);
  const built = await locomoGraph(conversations, extractor);
  log(`graph: ${built.entities} entities, ${built.relations} relations in ${built.seconds.toFixed(1)} s`);
  const models = { structured: { graph: built.graph } };
  const out: Evaluated[] = [await evaluate('mem+graph', {}, models)];
  let fitted: CrossValidation | undefined;
  if (cvToo) {
    const grid: Candidate<Partial<KnowledgeOptions>>[] = [];
    const point = async (hops: number, weight: number, depth: number) => {
      const label = hops === 0 ? 'graph off' : `hops ${hops}, weight ${weight}, depth ${depth}`;
      const config = { graphRecall: { hops, weight, depth } };
      const r = await evaluate(label, config, models);
      log(
        `cv graph: ${label}: any@10 ${r.recall_any['10']}, multi-hop all@10 ${r.by_category['multi-hop']?.recall_all['10']}`,
      );
      grid.push({ label, config, outcomes: r.outcomes! });
    };
    await point(0, 0, 0);
    for (const hops of [1, 2])
      for (const weight of [0.25, 0.5, 1]) for (const depth of [3, 5]) await point(hops, weight, depth);
    fitted = crossValidate(grid);
    out.push({
      name: 'mem+graph (cv)',
      ...fitted.heldOut,
      search_ms: { p50: Number.NaN, p95: Number.NaN },
      ingest_s: Number.NaN,
    });
  }
  const note = `mem+graph: a graph of ${built.entities} entities and ${built.relations} relations built from the turns by ${by} (${built.seconds.toFixed(1)} s); recall follows links at the defaults (hops 2, weight 0.25, depth 3)${fitted ? `; cv (hops, weight, depth left one conversation out, graph off among them) chose ${fitted.overall} on all conversations` : ''}.`;
  return { results: out, note, fitted };
}

/** The LLM statement extractor of `--graph-llm-url` / `--graph-llm-model` (key in MEM_LLM_API_KEY), or undefined. */
export function graphExtractor(
  url: string | undefined,
  model: string | undefined,
  log: (line: string) => void,
): StatementExtractor | undefined {
  if (!url) return undefined;
  if (!model) {
    log('bench retrieval: --graph-llm-url needs --graph-llm-model (the chat model that reads the turns).');
    process.exit(2);
  }
  const key = process.env.MEM_LLM_API_KEY;
  return createLlmStatementExtractor({ baseURL: url, model, ...(key ? { apiKey: key } : {}) });
}
