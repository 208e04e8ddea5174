/**
 * Distillation feeds the graph (docs/graph.md): each formed memory's entities and edges (`claimGraph`: what the
 * extractor named, else what the attribute says) are written with the memory's evidence and text as an observation.
 * A change of a one-value attribute closes the subject's other edges of that type (as the memory is superseded), a
 * retraction closes the edge it names; nothing is deleted.
 */
import { entityKey } from '../../domain/graph.js';
import { claimGraph, subjectEntityName } from '../../domain/graph-formation.js';
import { MemError } from '../../errors.js';
import type { ExtractionFailure } from '../../ports/statement-extractor.js';
import type { Stack } from '../../stack.js';
import type { Principal } from '../../types.js';
import type { DistillDecision, DistillReport } from '../knowledge/formation.js';
import type { GraphService } from './index.js';

/**
 * Apply a distillation's decisions to the graph, as `by` (the extractor): how many edges it opened and closed, and
 * the decisions the graph refused (a name a scanner stops, a store error), each said and the others still applied.
 */
export async function graphFromDecisions(
  graph: GraphService,
  p: Principal,
  decisions: readonly DistillDecision[],
  by: string,
): Promise<{ opened: number; closed: number; failures: ExtractionFailure[] }> {
  let opened = 0;
  let closed = 0;
  const failures: ExtractionFailure[] = [];
  for (const d of decisions) {
    if (d.decision === 'noop') continue;
    try {
      const done = await applyDecision(graph, p, d, by);
      opened += done.opened;
      closed += done.closed;
    } catch (error) {
      if (MemError.is(error) && (error.code === 'STORE_UNAVAILABLE' || error.code === 'INTERNAL')) throw error;
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ code: 'graph', message: `The graph did not take the memory about ${d.attribute}: ${message}` });
    }
  }
  // The user's entity answers to the user's id too ("User ada" is found by "ada"): once per distillation.
  const user = subjectEntityName(p.userId, 'user');
  if (p.userId && entityKey(p.userId).length > 0) {
    const known = (await graph.openNodes(p, { names: [user] })).entities.length > 0;
    if (known) await graph.addAliases(p, user, [p.userId], { by });
  }
  return { opened, closed, failures };
}

/** One decision's entities and edges written, its stale edges closed. */
async function applyDecision(graph: GraphService, p: Principal, d: DistillDecision, by: string) {
  let closed = 0;
  const { entities, edges } = claimGraph(p.userId, d);
  if (entities.length === 0) return { opened: 0, closed };
  // World time: the edges start when the memory does, and the ones it replaces stop then.
  const o = { evidence: d.evidence, by, validFrom: d.validFrom, validTo: d.validFrom };
  const me = entities[0]!.name;
  for (const edge of edges) {
    if (d.decision !== 'invalidate' && !edge.single) continue;
    // A retraction closes the edge to that value; a change of a one-value attribute closes the edges to the others.
    const around = await graph.openNodes(p, { names: [edge.from] });
    const stale = around.relations.filter(
      (r) =>
        entityKey(r.from) === entityKey(edge.from) &&
        r.relationType === edge.relationType &&
        (d.decision === 'invalidate' ? entityKey(r.to) === entityKey(edge.to) : entityKey(r.to) !== entityKey(edge.to)),
    );
    if (stale.length > 0) {
      await graph.deleteRelations(p, { relations: stale }, o);
      closed += stale.length;
    }
  }
  if (d.decision === 'invalidate') return { opened: 0, closed };
  const observed = entities.map((e) => ({ ...e, observations: e.name === me ? [] : [d.text] }));
  await graph.createEntities(p, { entities: observed }, o);
  if (edges.length === 0) return { opened: 0, closed };
  const relations = edges.map((e) => ({ from: e.from, to: e.to, relationType: e.relationType }));
  return { opened: (await graph.createRelations(p, { relations }, o)).relations.length, closed };
}

/**
 * A distillation's report after the graph learned from what it formed (a dry run or review mode forms nothing). The
 * memories are formed whatever happens here: an edge the graph refuses is reported as a failure, never thrown.
 */
export async function withGraph<T extends DistillReport>(stack: Stack, p: Principal, report: T): Promise<T> {
  if (!stack.graph || report.dryRun || report.decisions.length === 0) return report;
  try {
    const { failures } = await graphFromDecisions(stack.graph, p, report.decisions, report.extractor);
    return failures.length === 0 ? report : { ...report, failures: [...report.failures, ...failures] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...report,
      failures: [...report.failures, { code: 'graph', message: `The graph was not updated: ${message}` }],
    };
  }
}
