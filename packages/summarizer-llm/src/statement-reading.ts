/**
 * Reading the model's answer back into proposals: the list out of the JSON, each item checked field by field (a bad
 * item is dropped with a failure saying why, never in silence), the refs mapped back to real message ids and to the
 * related memory whose subject and attribute a fact about it takes, and the dates checked. Pure functions.
 */
import type { JsonValue } from '@mem/core';
import {
  type ExtractionFailure,
  entityKey,
  type ProposedEntity,
  type ProposedMemory,
  type ProposedRelation,
} from '@mem/core/adapter';
import type { ShownMessage, ShownRelated } from './statement-prompt.js';

type JsonObject = { [key: string]: JsonValue };

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** One memory object as the model writes it (it names an attribute and a value or statement). */
const looksLikeMemory = (v: JsonValue): boolean =>
  isObject(v) && 'attribute' in v && ('value' in v || 'statement' in v);

/**
 * The items of an answer: `{"memories": […]}`, a bare list, the one list of objects inside another wrapper, or a
 * single memory object. Null when the JSON holds no list of memories.
 */
export function answerItems(value: JsonValue): JsonValue[] | null {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return null;
  if (Array.isArray(value.memories)) return value.memories;
  if (looksLikeMemory(value)) return [value];
  // Another wrapper (`{"facts": […]}`): its one list, when that list holds objects. An empty list under another name
  // is not read as "nothing to keep": the model may have meant something else by it.
  const lists = Object.values(value).filter((v): v is JsonValue[] => Array.isArray(v));
  const list = lists.length === 1 ? lists[0]! : null;
  return list && list.length > 0 && list.every(isObject) ? list : null;
}

/** What `parseLenientJson` should accept: something `answerItems` can read. */
export const looksLikeAnswer = (value: JsonValue): boolean => answerItems(value) !== null;

/** Caps on what a proposal may hold (characters). Distill refuses a statement over 1,000 characters too. */
export const FIELD_CAPS = { subject: 60, attribute: 120, value: 500, statement: 1_000, kind: 40 } as const;

const ATTRIBUTE = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$/;
const SUBJECT = /^[a-z0-9]+(?:[ _-][a-z0-9]+)*$/;
const KIND = /^[a-z][a-z0-9-]*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** What the batch showed the model: its refs. */
export interface ShownRefs {
  messages: ReadonlyMap<string, ShownMessage>;
  related: ReadonlyMap<string, ShownRelated>;
}

export type ItemReading =
  | { proposal: ProposedMemory; notes: ExtractionFailure[] }
  | { failure: ExtractionFailure; code: string };

function describe(v: JsonValue | undefined): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.trim() === '' ? 'empty' : `"${v.length > 40 ? `${v.slice(0, 39)}…` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** A word as attributes and subjects are written: lower case, spaces and underscores as hyphens. */
const lowerWords = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

/**
 * An ISO date (`YYYY-MM-DD`, kept as is) or date and time (kept as the UTC time it names), or null for anything
 * else, a date the calendar does not have (`2026-02-30`) included.
 */
export function isoDate(text: string): string | null {
  const t = text.trim();
  const day = DATE.exec(t);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const back = new Date(Date.UTC(y, m - 1, d));
    return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d ? t : null;
  }
  if (!DATE_TIME.test(t)) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) || !isoDate(t.slice(0, 10)) ? null : new Date(ms).toISOString();
}

/** The instant a date or time starts (for comparing validFrom with validTo). */
const startOf = (d: string) => (d.length === 10 ? `${d}T00:00:00.000Z` : d);

/** A ref as the model may write it ("M1", " r2 "): trimmed, lower case. */
const refOf = (s: string) => s.trim().toLowerCase();

/**
 * One item of the answer as a proposal, or the failure that drops it. `index` is its position in the answer (the
 * failure names it as `memory #<index + 1>`). A date that is no ISO date becomes null and is reported in `notes`.
 */
export function readItem(item: JsonValue, index: number, refs: ShownRefs): ItemReading {
  const name = `memory #${index + 1}`;
  const drop = (code: string, why: string): ItemReading => ({ code, failure: { code, message: `${name}: ${why}` } });
  if (!isObject(item)) return drop('bad-shape', `it is ${describe(item)}, not an object`);
  const text = (field: keyof typeof FIELD_CAPS, required = true): string | null | ItemReading => {
    const v = item[field];
    if ((v === undefined || v === null) && !required) return null;
    if (typeof v !== 'string' || v.trim() === '')
      return drop('bad-shape', `"${field}" is ${describe(v)}, not a non-empty text`);
    if (v.trim().length > FIELD_CAPS[field])
      return drop('bad-shape', `"${field}" has ${v.trim().length} characters, over ${FIELD_CAPS[field]}`);
    return v.trim();
  };
  const fields: Record<string, string | null> = {};
  for (const field of ['subject', 'attribute', 'value', 'statement'] as const) {
    const got = text(field);
    if (typeof got === 'object' && got !== null) return got;
    fields[field] = got;
  }
  let subject = lowerWords(fields.subject!);
  let attribute = lowerWords(fields.attribute!).replace(/-*\.-*/g, '.');
  const label = `${name} (${attribute})`;
  const bad = (code: string, why: string): ItemReading => ({ code, failure: { code, message: `${label}: ${why}` } });
  if (!SUBJECT.test(subject)) return bad('bad-shape', `"subject" ${describe(fields.subject!)} is not lowercase words`);
  if (!ATTRIBUTE.test(attribute))
    return bad('bad-shape', `"attribute" ${describe(fields.attribute!)} is not lowercase words joined by dots`);
  if (typeof item.single !== 'boolean') return bad('bad-shape', `"single" is ${describe(item.single)}, not true/false`);
  const polarity = item.polarity;
  if (polarity !== 'holds' && polarity !== 'retracted')
    return bad('bad-shape', `"polarity" is ${describe(polarity)}, not "holds" or "retracted"`);
  const stance = item.stance ?? 'for';
  if (stance !== 'for' && stance !== 'against')
    return bad('bad-shape', `"stance" is ${describe(stance)}, not "for" or "against"`);
  const kindText = text('kind', false);
  if (typeof kindText === 'object' && kindText !== null) return kindText;
  const kind = kindText === null ? attribute.split('.')[0]! : lowerWords(kindText);
  if (!KIND.test(kind)) return bad('bad-shape', `"kind" ${describe(kindText ?? '')} is not one lowercase word`);
  const cited = typeof item.evidence === 'string' ? [item.evidence] : item.evidence;
  if (!Array.isArray(cited) || cited.length === 0 || !cited.every((e) => typeof e === 'string'))
    return bad('bad-shape', `"evidence" is ${describe(item.evidence)}, not a list of message refs`);
  for (const field of ['validFrom', 'validTo', 'about'] as const) {
    const v = item[field];
    if (v !== undefined && v !== null && typeof v !== 'string')
      return bad('bad-shape', `"${field}" is ${describe(v)}, not a text or null`);
  }

  // Refs: every one must name something the batch showed.
  const evidence: string[] = [];
  const context: string[] = [];
  for (const raw of cited as string[]) {
    const shown = refs.messages.get(refOf(raw));
    if (!shown) return bad('unknown-alias', `evidence names "${raw}", which is no message shown`);
    if (shown.use !== 'facts') context.push(shown.ref);
    else if (!evidence.includes(shown.id)) evidence.push(shown.id);
  }
  if (evidence.length === 0)
    return bad('bad-evidence', `it rests only on ${context.join(', ')}, shown as context (the assistant's words)`);
  const about = typeof item.about === 'string' && item.about.trim() !== '' ? item.about : null;
  if (about !== null) {
    const related = refs.related.get(refOf(about));
    if (!related) return bad('unknown-alias', `"about" names "${about}", which is no related memory shown`);
    // A fact about a related memory is about its subject and attribute: so that a change supersedes it.
    subject = related.subject;
    attribute = related.attribute;
  }

  const notes: ExtractionFailure[] = [];
  const note = (why: string) => notes.push({ code: 'bad-date', message: `${label}: ${why}; kept without it` });
  const date = (field: 'validFrom' | 'validTo'): string | null => {
    const v = item[field];
    if (typeof v !== 'string' || v.trim() === '') return null;
    const d = isoDate(v);
    if (d === null) note(`"${field}" ${describe(v)} is no ISO date`);
    return d;
  };
  const validFrom = date('validFrom');
  let validTo = date('validTo');
  if (validFrom !== null && validTo !== null && startOf(validTo) <= startOf(validFrom)) {
    note(`"validTo" ${validTo} is not after "validFrom" ${validFrom}`);
    validTo = null;
  }
  const graph = readGraph(item, (why) => notes.push({ code: 'bad-graph', message: `${label}: ${why}; left out` }));
  return {
    proposal: {
      kind,
      subject,
      attribute,
      single: item.single,
      polarity,
      stance,
      value: fields.value!,
      statement: fields.statement!,
      validFrom,
      validTo,
      evidence,
      ...graph,
    },
    notes,
  };
}

/** At most this many entities and relations per fact (more are left out, with a note). */
export const GRAPH_CAPS = { entities: 12, relations: 12, name: 200, type: 40, relationType: 60 } as const;
const RELATION_TYPE = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/**
 * The entities and relations a fact names (docs/graph.md), each checked on its own: a bad one is left out with a
 * note, the fact stays. Relation ends are "user" or the name of a listed entity (matched by its normalised form).
 */
export function readGraph(
  item: JsonObject,
  note: (why: string) => void,
): { entities?: ProposedEntity[]; relations?: ProposedRelation[] } {
  const list = (field: 'entities' | 'relations', cap: number): JsonValue[] => {
    const v = item[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      note(`"${field}" is ${describe(v)}, not a list`);
      return [];
    }
    if (v.length > cap) note(`"${field}" lists ${v.length}, over ${cap}: the first ${cap} kept`);
    return v.slice(0, cap);
  };
  const entities = new Map<string, ProposedEntity>();
  for (const [i, e] of list('entities', GRAPH_CAPS.entities).entries()) {
    const name = isObject(e) && typeof e.name === 'string' ? e.name.trim() : '';
    const type = isObject(e) && typeof e.type === 'string' ? lowerWords(e.type) : '';
    const key = entityKey(name);
    if (key.length === 0 || name.length > GRAPH_CAPS.name) {
      note(`entity #${i + 1} has no usable "name" (${describe(isObject(e) ? e.name : e)})`);
      continue;
    }
    if (!KIND.test(type) || type.length > GRAPH_CAPS.type) {
      note(`entity "${name}" has no usable "type" (${describe(isObject(e) ? e.type : undefined)})`);
      continue;
    }
    if (key !== 'user' && !entities.has(key)) entities.set(key, { name, entityType: type });
  }
  const end = (v: JsonValue | undefined): string | null => {
    if (typeof v !== 'string') return null;
    const key = entityKey(v);
    return key === 'user' ? 'user' : (entities.get(key)?.name ?? null);
  };
  const relations: ProposedRelation[] = [];
  for (const [i, r] of list('relations', GRAPH_CAPS.relations).entries()) {
    if (!isObject(r)) {
      note(`relation #${i + 1} is ${describe(r)}, not an object`);
      continue;
    }
    const from = end(r.from);
    const to = end(r.to);
    const type =
      typeof r.type === 'string'
        ? r.type
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, '_')
        : '';
    if (from === null || to === null || from === to) {
      note(
        `relation #${i + 1} joins ${describe(r.from)} and ${describe(r.to)}: each end must be "user" or a listed entity, and the two differ`,
      );
      continue;
    }
    if (!RELATION_TYPE.test(type) || type.length > GRAPH_CAPS.relationType) {
      note(`relation #${i + 1} has no usable "type" (${describe(r.type)}): lowercase words joined by underscores`);
      continue;
    }
    relations.push({ from, relationType: type, to });
  }
  return {
    ...(entities.size > 0 ? { entities: [...entities.values()] } : {}),
    ...(relations.length > 0 ? { relations } : {}),
  };
}
