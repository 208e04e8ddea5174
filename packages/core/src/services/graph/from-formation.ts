/**
 * Distillation feeds the graph (docs/graph.md): a formed memory about where the user lives or comes from, who they
 * work for, the people and the pets they name becomes an edge from the user's entity to that place, organisation,
 * person or pet, with the memory's evidence. A change of mind closes the old edge (as the memory is superseded), a
 * retraction closes it; nothing is deleted. Other memories (likes, plans, constraints) stay memories only.
 */
import { entityKey } from '../../domain/graph.js';
import type { Stack } from '../../stack.js';
import type { Principal } from '../../types.js';
import type { DistillDecision, DistillReport } from '../knowledge/formation.js';
import type { GraphService } from './index.js';

/** What an attribute says as an edge: its type, the type of the other end, and whether it holds one value at a time. */
interface EdgeRule {
  relationType: string;
  entityType: string;
  single: boolean;
}

/** The edge of a formed memory's attribute (`residence`, `employer`, `person.sister`, `pet.dog.rex`), or null. */
export function edgeOf(attribute: string): EdgeRule | null {
  const [head, second] = attribute.split('.');
  if (head === 'residence') return { relationType: 'lives_in', entityType: 'place', single: true };
  if (head === 'origin') return { relationType: 'comes_from', entityType: 'place', single: true };
  if (head === 'employer') return { relationType: 'works_at', entityType: 'organization', single: true };
  if (head === 'person' && second) return { relationType: `has_${second}`, entityType: 'person', single: false };
  if (head === 'pet' && second) return { relationType: 'has_pet', entityType: second, single: false };
  return null;
}

/** The name of the entity a memory's subject is: the user it is about, else "User" of the agent. */
const subjectName = (p: Principal, subject: string) =>
  subject === 'user' ? (p.userId ? `User ${p.userId}` : 'User') : subject;

/** Apply a distillation's decisions to the graph, as `by` (the extractor). Returns how many edges it opened and closed. */
export async function graphFromDecisions(
  graph: GraphService,
  p: Principal,
  decisions: readonly DistillDecision[],
  by: string,
): Promise<{ opened: number; closed: number }> {
  let opened = 0;
  let closed = 0;
  for (const d of decisions) {
    const rule = edgeOf(d.attribute);
    if (!rule || d.decision === 'noop' || entityKey(d.value).length === 0 || d.value.length > 200) continue;
    const from = subjectName(p, d.subject);
    const o = { evidence: d.evidence, by };
    if (d.decision === 'invalidate' || rule.single) {
      // A retraction closes the edge to that value; a change of a one-value attribute closes the edges of the old one.
      const around = await graph.openNodes(p, { names: [from] });
      const stale = around.relations.filter(
        (r) =>
          r.from === from &&
          r.relationType === rule.relationType &&
          (d.decision === 'invalidate'
            ? entityKey(r.to) === entityKey(d.value)
            : entityKey(r.to) !== entityKey(d.value)),
      );
      if (stale.length > 0) {
        await graph.deleteRelations(p, { relations: stale }, o);
        closed += stale.length;
      }
      if (d.decision === 'invalidate') continue;
    }
    await graph.createEntities(
      p,
      {
        entities: [
          { name: from, entityType: 'person', observations: [] },
          { name: d.value, entityType: rule.entityType, observations: [d.text] },
        ],
      },
      o,
    );
    opened += (
      await graph.createRelations(p, { relations: [{ from, to: d.value, relationType: rule.relationType }] }, o)
    ).relations.length;
  }
  return { opened, closed };
}

/**
 * A distillation's report after the graph learned from what it formed (a dry run or review mode forms nothing). The
 * memories are formed whatever happens here: an edge the graph refuses is reported as a failure, never thrown.
 */
export async function withGraph<T extends DistillReport>(stack: Stack, p: Principal, report: T): Promise<T> {
  if (!stack.graph || report.dryRun || report.decisions.length === 0) return report;
  try {
    await graphFromDecisions(stack.graph, p, report.decisions, report.extractor);
    return report;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...report,
      failures: [...report.failures, { code: 'graph', message: `The graph was not updated: ${message}` }],
    };
  }
}
