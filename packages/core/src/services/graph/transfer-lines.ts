/**
 * The graph's lines in `mem export` / `mem import` (docs/writing.md, docs/graph.md): one JSON object per record,
 * told apart from memory lines (which have no `type`) by a `type` of `graph-entity`, `graph-observation`,
 * `graph-relation` or `graph-log`. Every field of the record is written but its space (the import's space is used);
 * `keys` and `searchText` are derived again on import, as every graph write derives them.
 */
import { z } from 'zod';
import {
  checkEntityName,
  checkEntityType,
  checkedEntityKey,
  checkObservation,
  checkRelationType,
  entityKey,
} from '../../domain/graph.js';
import { checkName } from '../../domain/names.js';
import { MemError, type MemErrorCode } from '../../errors.js';
import { momentSchema, scopeSchema } from '../../schemas.js';
import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../../types-graph.js';
import { IMPLICIT } from './base.js';

export const GRAPH_LINE_TYPES = ['graph-entity', 'graph-observation', 'graph-relation', 'graph-log'] as const;
export type GraphLineType = (typeof GRAPH_LINE_TYPES)[number];

/** Is this parsed line a graph line (a `type` starting `graph-`)? Memory lines have no `type`. */
export function isGraphLine(value: unknown): value is { type: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && type.startsWith('graph-');
}

/** A zod string checked by one of the graph's own rules (its message kept). */
const ruled = (check: (v: string) => unknown, base: z.ZodString = z.string()) =>
  base.superRefine((v, ctx) => {
    try {
      check(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
    }
  });

const id = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'must be an id of letters, digits, "_", ".", ":" or "-"');
const time = momentSchema;
const maybeTime = momentSchema.nullable();
const evidence = z.array(z.string().min(1).max(200)).max(1000);
const agentId = ruled((v) => checkName(v, 'agent'));
const userId = ruled((v) => checkName(v, 'user')).nullable();
const name = ruled((v) => checkEntityName(v));
const entityName = ruled((v) => checkedEntityKey(checkEntityName(v)));
const entityType = ruled((v) => (v === IMPLICIT ? v : checkEntityType(v)));

const entityLine = z
  .object({
    type: z.literal('graph-entity'),
    id,
    name: entityName,
    entityType,
    aliases: z.array(name).max(1000),
    keys: z.array(z.string().max(1000)).max(1001).optional(),
    searchText: z.string().max(1_000_000).optional(),
    scope: scopeSchema,
    agentId,
    userId,
    mergedInto: id.nullable(),
    validFrom: maybeTime,
    validTo: maybeTime,
    recordedAt: time,
    invalidatedAt: maybeTime,
    evidence,
    updatedAt: time,
  })
  .strict();

const observationLine = z
  .object({
    type: z.literal('graph-observation'),
    id,
    entityId: id,
    text: ruled((v) => checkObservation(v)),
    agentId,
    recordedAt: time,
    invalidatedAt: maybeTime,
    evidence,
  })
  .strict();

const relationLine = z
  .object({
    type: z.literal('graph-relation'),
    id,
    fromId: id,
    relationType: ruled((v) => checkRelationType(v)),
    toId: id,
    scope: scopeSchema,
    agentId,
    userId,
    validFrom: maybeTime,
    validTo: maybeTime,
    recordedAt: time,
    invalidatedAt: maybeTime,
    evidence,
  })
  .strict();

const logLine = z
  .object({
    type: z.literal('graph-log'),
    id,
    recordId: id,
    kind: z.enum(['entity', 'relation', 'observation']),
    decision: z.enum(['add', 'noop', 'update', 'invalidate', 'merge', 'unmerge']),
    at: time,
    by: z.string().min(1).max(200),
    agentId,
    evidence,
    detail: z
      .record(z.string(), z.unknown())
      .refine((d) => JSON.stringify(d).length <= 1_000_000, 'is more than 1,000,000 characters of JSON'),
  })
  .strict();

const SCHEMAS = {
  'graph-entity': entityLine,
  'graph-observation': observationLine,
  'graph-relation': relationLine,
  'graph-log': logLine,
} as const;

/** One graph line as export writes it. */
export type GraphEntityLine = z.output<typeof entityLine>;
export type GraphObservationLine = z.output<typeof observationLine>;
export type GraphRelationLine = z.output<typeof relationLine>;
export type GraphLogLine = z.output<typeof logLine>;
export type GraphLine = GraphEntityLine | GraphObservationLine | GraphRelationLine | GraphLogLine;

/** A graph line read: its number in the file and its record (in the importing space). */
export type ParsedGraphLine =
  | { line: number; kind: 'entity'; record: EntityRecord }
  | { line: number; kind: 'observation'; record: ObservationRecord }
  | { line: number; kind: 'relation'; record: RelationRecord }
  | { line: number; kind: 'log'; record: GraphLogEntry };

/** An import's refusal of a line: `INVALID_INPUT` (or `code`) naming its number and field. */
export function lineError(
  line: number,
  field: string,
  message: string,
  code: MemErrorCode = 'INVALID_INPUT',
): MemError {
  return new MemError(
    code,
    `line ${line}: ${field}: ${message} (nothing was imported: fix the line and import the file again).`,
    { details: { line, field } },
  );
}

/** The resolution keys of a name and its aliases, as graph writes derive them. */
export const entityKeys = (name: string, aliases: readonly string[]): string[] => [
  ...new Set([checkedEntityKey(name), ...aliases.map(entityKey).filter((k) => k.length > 0)]),
];

/** Read one graph line (already JSON) into its record in `space`, or throw `INVALID_INPUT` naming line and field. */
export function parseGraphLine(line: number, value: { type: string }, space: string): ParsedGraphLine {
  const schema = (SCHEMAS as Record<string, z.ZodType<GraphLine>>)[value.type];
  if (!schema) {
    throw lineError(
      line,
      'type',
      `unknown line type "${value.type.slice(0, 60)}": graph lines are ${GRAPH_LINE_TYPES.join(', ')}`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const key = String(issue.keys[0]).slice(0, 60);
      throw lineError(line, `${value.type}.${key}`, `is not a field of a ${value.type} line`);
    }
    throw lineError(line, `${value.type}.${issue.path.join('.')}`, issue.message);
  }
  const data = parsed.data;
  switch (data.type) {
    case 'graph-entity': {
      const { type: _type, keys: _keys, searchText: _text, ...e } = data;
      return { line, kind: 'entity', record: { ...e, space, keys: entityKeys(e.name, e.aliases), searchText: '' } };
    }
    case 'graph-observation': {
      const { type: _type, ...o } = data;
      return { line, kind: 'observation', record: { ...o, space } };
    }
    case 'graph-relation': {
      const { type: _type, ...r } = data;
      return { line, kind: 'relation', record: { ...r, space } };
    }
    default: {
      const { type: _type, ...l } = data;
      return { line, kind: 'log', record: { ...l, space } };
    }
  }
}

/** The line export writes for a record (every field but `space`, in a fixed order). */
export function entityToLine(e: EntityRecord): GraphEntityLine {
  return {
    type: 'graph-entity',
    id: e.id,
    name: e.name,
    entityType: e.entityType,
    aliases: e.aliases,
    keys: e.keys,
    searchText: e.searchText,
    scope: e.scope,
    agentId: e.agentId,
    userId: e.userId,
    mergedInto: e.mergedInto,
    validFrom: e.validFrom,
    validTo: e.validTo,
    recordedAt: e.recordedAt,
    invalidatedAt: e.invalidatedAt,
    evidence: e.evidence,
    updatedAt: e.updatedAt,
  };
}

export function observationToLine(o: ObservationRecord): GraphObservationLine {
  return {
    type: 'graph-observation',
    id: o.id,
    entityId: o.entityId,
    text: o.text,
    agentId: o.agentId,
    recordedAt: o.recordedAt,
    invalidatedAt: o.invalidatedAt,
    evidence: o.evidence,
  };
}

export function relationToLine(r: RelationRecord): GraphRelationLine {
  return {
    type: 'graph-relation',
    id: r.id,
    fromId: r.fromId,
    relationType: r.relationType,
    toId: r.toId,
    scope: r.scope,
    agentId: r.agentId,
    userId: r.userId,
    validFrom: r.validFrom,
    validTo: r.validTo,
    recordedAt: r.recordedAt,
    invalidatedAt: r.invalidatedAt,
    evidence: r.evidence,
  };
}

export function logToLine(l: GraphLogEntry): GraphLogLine {
  return {
    type: 'graph-log',
    id: l.id,
    recordId: l.recordId,
    kind: l.kind,
    decision: l.decision,
    at: l.at,
    by: l.by,
    agentId: l.agentId,
    evidence: l.evidence,
    detail: l.detail,
  };
}
