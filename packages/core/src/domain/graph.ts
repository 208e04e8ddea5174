/**
 * The rules of the memory graph that need no storage (docs/graph.md): how a name becomes a resolution key, the
 * limits of names, types and observations, which records a view sees, and the JSONL format of the MCP memory server.
 */
import { MemError } from '../errors.js';
import type { GraphView } from '../ports/graph-store.js';
import type { EntityRecord, GraphOwner, GraphTimes, ObservationRecord } from '../types-graph.js';

export const MAX_ENTITY_NAME = 200;
export const MAX_GRAPH_TYPE = 100;
export const MAX_OBSERVATION = 2000;

/** Legal-form words that do not tell two organisations apart ("Acme Inc." is "ACME"), dropped at the end of a name. */
const LEGAL_FORMS = new Set([
  'inc',
  'incorporated',
  'ltd',
  'limited',
  'llc',
  'llp',
  'corp',
  'corporation',
  'co',
  'company',
  'gmbh',
  'plc',
  'ag',
  'sa',
  'sas',
  'srl',
  'bv',
  'nv',
  'pty',
  'oy',
  'ab',
  'as',
  'kk',
  'spa',
]);

/**
 * The resolution key of a name: compatibility-decomposed, accents and case dropped, `&` read as "and", everything
 * but letters, digits, `+` and `#` a space, a leading "the" and trailing legal forms dropped (unless nothing else is left).
 * "Acme, Inc." → "acme", "José  Núñez" → "jose nunez", "The Beatles" → "beatles". Linear in the name's length.
 */
export function entityKey(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    // `+` and `#` stay: C, C++ and C# are three things.
    .replace(/[^\p{L}\p{N}+#]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w.length > 0);
  let end = words.length;
  while (end > 1 && LEGAL_FORMS.has(words[end - 1]!)) end--;
  // A leading "the" goes unless nothing but "the" would be left ("The The" is not "The").
  const start = end > 1 && words[0] === 'the' && words.slice(1, end).some((w) => w !== 'the') ? 1 : 0;
  return words.slice(start, end).join(' ');
}

function checkText(value: unknown, what: string, max: number, example: string): string {
  const problem =
    typeof value !== 'string'
      ? `it is ${value === null ? 'null' : typeof value}, not a string`
      : value.trim().length === 0
        ? 'it is empty'
        : value.length > max
          ? `it is ${value.length} characters long (at most ${max})`
          : /[\u0000-\u0008\u000b-\u001f\u007f]/.test(value)
            ? 'it contains a NUL or control character'
            : null;
  if (problem) {
    const shown = typeof value === 'string' ? ` "${value.slice(0, 60)}"` : '';
    throw new MemError('INVALID_INPUT', `Invalid ${what}${shown}: ${problem}. Give ${example}.`, {
      details: { what, rule: 'graph-text' },
    });
  }
  return value as string;
}

/** A name (an entity's or an alias): 1–200 characters of text, no control characters. */
export const checkEntityName = (name: unknown, what = 'entity name'): string =>
  checkText(name, what, MAX_ENTITY_NAME, `a name of 1–${MAX_ENTITY_NAME} characters, e.g. "Ada Lovelace"`);

export const checkEntityType = (type: unknown): string =>
  checkText(type, 'entityType', MAX_GRAPH_TYPE, `a type of 1–${MAX_GRAPH_TYPE} characters, e.g. "person"`);

export const checkRelationType = (type: unknown): string =>
  checkText(
    type,
    'relationType',
    MAX_GRAPH_TYPE,
    `a type of 1–${MAX_GRAPH_TYPE} characters in active voice, e.g. "works_at"`,
  );

export const checkObservation = (text: unknown): string =>
  checkText(
    text,
    'observation',
    MAX_OBSERVATION,
    `a statement of 1–${MAX_OBSERVATION} characters, e.g. "Speaks Portuguese"`,
  );

/** The key of a name, refusing a name with no letter or digit (it would resolve to everything with none). */
export function checkedEntityKey(name: string): string {
  const key = entityKey(name);
  if (!/[\p{L}\p{N}]/u.test(key)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid entity name "${name.slice(0, 60)}": it has no letter or digit, so it cannot be told apart from another name. Give a name with letters or digits.`,
      { details: { what: 'entity name', rule: 'graph-key' } },
    );
  }
  return key;
}

/** Does a record rest only on these messages (evidence given, and every id of it among them)? forget by message. */
export function onlyOn(evidence: readonly string[], messages: ReadonlySet<string>): boolean {
  return evidence.length > 0 && evidence.every((id) => messages.has(id));
}

/** Lower-case text a word search reads: name, aliases, type, observations. */
export function entitySearchText(
  e: Pick<EntityRecord, 'name' | 'aliases' | 'entityType'>,
  observations: readonly string[],
): string {
  return [e.name, ...e.aliases, e.entityType, ...observations].join('\n').toLowerCase();
}

/** Does `view` see the owner of this record (scope, owner agent, user; every owner with `everyOwner`)? */
export function graphVisible(r: GraphOwner, view: GraphView): boolean {
  if (view.everyOwner) return true;
  if (r.scope === 'agent' && r.agentId !== view.viewerAgentId) return false;
  return r.userId === null || r.userId === view.userId;
}

/** Does the record hold in `view`: current at `now`, held at `asOf`, or any with `history`. */
export function graphHolds(r: GraphTimes & { mergedInto?: string | null }, view: GraphView): boolean {
  if (view.history) return true;
  if (view.asOf !== undefined) {
    const from = r.validFrom ?? r.recordedAt;
    return r.recordedAt <= view.asOf && from <= view.asOf && (r.validTo === null || view.asOf < r.validTo);
  }
  return r.invalidatedAt === null && (r.mergedInto ?? null) === null && (r.validTo === null || r.validTo > view.now);
}

/** Does the observation hold in `view`. */
export function observationHolds(o: ObservationRecord, view: GraphView): boolean {
  if (view.history) return true;
  if (view.asOf !== undefined)
    return o.recordedAt <= view.asOf && (o.invalidatedAt === null || view.asOf < o.invalidatedAt);
  return o.invalidatedAt === null;
}

/** An entity as the MCP memory server writes it. */
export interface MemoryServerEntity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation as the MCP memory server writes it (entity names). */
export interface MemoryServerRelation {
  from: string;
  to: string;
  relationType: string;
}

export interface MemoryServerGraph {
  entities: MemoryServerEntity[];
  relations: MemoryServerRelation[];
}

const lineError = (n: number, problem: string) =>
  new MemError(
    'INVALID_INPUT',
    `Line ${n} of the memory file ${problem}. Each line is {"type":"entity","name","entityType","observations":[…]} or {"type":"relation","from","to","relationType"}.`,
    { details: { line: n, rule: 'memory-jsonl' } },
  );

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * The graph of an MCP memory server file (JSONL): entity and relation lines, in order; blank lines skipped, a line of
 * another `type` skipped as that server does. A line that is not JSON or lacks a field gets INVALID_INPUT naming it.
 */
export function parseMemoryJsonl(text: string): MemoryServerGraph {
  const graph: MemoryServerGraph = { entities: [], relations: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line);
    } catch {
      throw lineError(i + 1, 'is not JSON');
    }
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw lineError(i + 1, 'is not a JSON object');
    if (item.type === 'entity') {
      const { name, entityType, observations } = item;
      if (typeof name !== 'string' || typeof entityType !== 'string' || !isStringList(observations ?? [])) {
        throw lineError(i + 1, 'is an entity without a string name, a string entityType and a list of observations');
      }
      graph.entities.push({ name, entityType, observations: [...((observations as string[]) ?? [])] });
    } else if (item.type === 'relation') {
      const { from, to, relationType } = item;
      if (typeof from !== 'string' || typeof to !== 'string' || typeof relationType !== 'string') {
        throw lineError(i + 1, 'is a relation without string from, to and relationType');
      }
      graph.relations.push({ from, to, relationType });
    }
  }
  return graph;
}

/** The JSONL the MCP memory server writes for a graph: entities, then relations, one per line (no final newline). */
export function toMemoryJsonl(graph: MemoryServerGraph): string {
  return [
    ...graph.entities.map((e) =>
      JSON.stringify({ type: 'entity', name: e.name, entityType: e.entityType, observations: e.observations }),
    ),
    ...graph.relations.map((r) =>
      JSON.stringify({ type: 'relation', from: r.from, to: r.to, relationType: r.relationType }),
    ),
  ].join('\n');
}
