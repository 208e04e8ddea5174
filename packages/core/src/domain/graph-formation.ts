/**
 * What a formed memory puts in the memory graph (docs/graph.md): its entities and edges, from what the extractor
 * named (an LLM extractor names the people, places and things of each fact and how they link) or, when it named
 * nothing, from the attribute (`residence` → the user lives in a place, `employer` → works at an organisation,
 * `person.sister` → has a sister, `pet.dog.rex` → has a pet dog). Pure: the graph service writes what this says.
 */
import type { ProposedEntity, ProposedRelation } from '../ports/statement-extractor.js';
import { entityKey } from './graph.js';

/** What an attribute says as an edge: its type, the type of the other end, and whether it holds one value at a time. */
export interface EdgeRule {
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

/** The name of the entity a memory's subject is: the user it is about (`User <userId>`, else "User"), or the subject. */
export const subjectEntityName = (userId: string | undefined | null, subject: string): string =>
  subject === 'user' ? (userId ? `User ${userId}` : 'User') : subject;

/** What a memory claims, as the graph reads it. */
export interface ClaimForGraph {
  subject: string;
  attribute: string;
  value: string;
  single: boolean;
  entities?: readonly ProposedEntity[] | undefined;
  relations?: readonly ProposedRelation[] | undefined;
}

export interface GraphEdge {
  from: string;
  relationType: string;
  to: string;
  /** The subject holds one such edge at a time: a new value closes the others (a change of residence). */
  single: boolean;
}

export interface ClaimGraph {
  /** The subject's entity first, then the others, each once. */
  entities: { name: string; entityType: string }[];
  edges: GraphEdge[];
}

/** A value fit to be an entity name: a letter or digit, at most 200 characters. */
const nameable = (v: string) => v.length <= 200 && entityKey(v).length > 0;

/** The entities and edges of a claim, for the user `userId` (see the file's comment). */
export function claimGraph(userId: string | undefined | null, c: ClaimForGraph): ClaimGraph {
  const me = subjectEntityName(userId, c.subject);
  const end = (n: string) => (n === 'user' ? me : n);
  const entities = new Map<string, { name: string; entityType: string }>([
    [entityKey(me), { name: me, entityType: 'person' }],
  ]);
  const add = (name: string, entityType: string) => {
    if (nameable(name) && !entities.has(entityKey(name))) entities.set(entityKey(name), { name, entityType });
  };
  const named = (c.entities ?? []).length + (c.relations ?? []).length > 0;
  if (named) {
    for (const e of c.entities ?? []) add(e.name, e.entityType);
    const edges = (c.relations ?? [])
      .map((r) => ({ from: end(r.from), relationType: r.relationType, to: end(r.to) }))
      .filter((r) => entities.has(entityKey(r.from)) && entities.has(entityKey(r.to)) && r.from !== r.to)
      .map((r) => ({ ...r, single: c.single && r.from === me }));
    return { entities: [...entities.values()], edges };
  }
  const rule = edgeOf(c.attribute);
  if (!rule || !nameable(c.value)) return { entities: [], edges: [] };
  add(c.value, rule.entityType);
  return {
    entities: [...entities.values()],
    edges: [{ from: me, relationType: rule.relationType, to: c.value, single: rule.single }],
  };
}

/** The names a memory records as its entities (`MemoryClaim.entities`), or undefined when the graph gets none. */
export function claimEntityNames(userId: string | undefined | null, c: ClaimForGraph): string[] | undefined {
  const g = claimGraph(userId, c);
  return g.entities.length > 0 ? g.entities.map((e) => e.name) : undefined;
}
