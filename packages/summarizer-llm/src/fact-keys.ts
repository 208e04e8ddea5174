/**
 * Keys of LLM-extracted facts. The grammar itself is core's (`FACT_KEY_PATTERN`, `checkFactKey` of
 * `@mem/core/adapter`): `<kind>.<subject>.<aspect>`, three lower-case kebab segments, e.g. `tool.deploy-tool.retry-policy`
 * or `pitfall.friday-deploys.rollback-needed`. This file adds what a model's proposals need on top: a closed list of
 * kinds, and the normalisation of a proposed key into the grammar. The same knowledge must give the same key on every
 * run, so keys name what the fact is about, never how often or when: numbers (counts, dates, versions, percentages)
 * belong in the value. Pure functions.
 */
import { FACT_KEY_PATTERN, factKeyProblem, factKeyWords, MAX_FACT_SEGMENT } from '@mem/core/adapter';

/** Re-exported from `@mem/core/adapter`, where the grammar lives. */
export { FACT_KEY_PATTERN, MAX_FACT_SEGMENT };

/** The kinds a key may start with (the default closed list). */
export const DEFAULT_FACT_KINDS: readonly string[] = [
  'tool', // how a tool behaves or is best used
  'tag', // how tasks of a tag (a cluster) go
  'practice', // a way of working that succeeds
  'pitfall', // something that fails, and why
  'preference', // what the user or team prefers
  'constraint', // a rule or requirement that applies
  'environment', // systems, hosts, paths, services and how they are set up
  'project', // the project: its parts, owners, conventions
];

export type FactKeyCheck = { ok: true; key: string; changed: boolean } | { ok: false; reason: string };

/** A kebab part that is a count, a date, a year, a version number or an ordinal: dropped from keys. */
const NUMERIC_PART = /^\d+(?:st|nd|rd|th)?$/;

/**
 * Bring a proposed key into the grammar, or say why it cannot be: lower case, accents dropped, camelCase split,
 * `/` `:` `>` `|` `\` read as `.`, any other character outside `[a-z0-9]` read as `-`, numeric parts (counts, dates,
 * versions, ordinals) removed, a fourth or later segment joined to the aspect with `-`, a plural kind made singular.
 * `kinds` is the closed list of first segments (empty: any kind).
 */
export function normaliseFactKey(raw: unknown, kinds: readonly string[] = DEFAULT_FACT_KINDS): FactKeyCheck {
  if (typeof raw !== 'string') return { ok: false, reason: factKeyProblem(raw)! };
  if (raw.trim() === '') return { ok: false, reason: 'the key is empty' };
  if (factKeyProblem(raw) === null && !hasNumericPart(raw) && kindAllowed(raw.split('.')[0]!, kinds))
    return { ok: true, key: raw, changed: false };
  const segments = raw
    .normalize('NFKD')
    .split(/[./:>|\\]/)
    .map((segment) =>
      factKeyWords(segment)
        .filter((part) => !NUMERIC_PART.test(part))
        .join('-'),
    )
    .filter((segment) => segment !== '');
  const shown = `"${raw.length > 80 ? `${raw.slice(0, 80)}…` : raw}"`;
  if (segments.length < 3)
    return {
      ok: false,
      reason: `the key ${shown} has ${segments.length} usable segment${segments.length === 1 ? '' : 's'}; keys are <kind>.<subject>.<aspect>`,
    };
  const [first, subject, ...rest] = segments as [string, string, ...string[]];
  let kind = first;
  if (!kindAllowed(kind, kinds) && kind.endsWith('s') && kindAllowed(kind.slice(0, -1), kinds))
    kind = kind.slice(0, -1);
  if (!kindAllowed(kind, kinds))
    return {
      ok: false,
      reason: `the key ${shown} starts with kind "${kind}", which is not one of ${kinds.join(', ')}`,
    };
  const key = [kind, subject, rest.join('-')].join('.');
  const long = key.split('.').find((s) => s.length > MAX_FACT_SEGMENT);
  if (long) return { ok: false, reason: `the key ${shown} has a segment over ${MAX_FACT_SEGMENT} characters` };
  return { ok: true, key, changed: key !== raw };
}

function kindAllowed(kind: string, kinds: readonly string[]): boolean {
  return kinds.length === 0 || kinds.includes(kind);
}

function hasNumericPart(key: string): boolean {
  return key.split(/[.-]/).some((part) => NUMERIC_PART.test(part));
}
