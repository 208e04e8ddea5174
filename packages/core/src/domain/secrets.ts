import { MemError } from '../errors.js';

import { removeAllIgnorable, stripHidden } from './hidden-text.js';
import { memoByKey } from './memo.js';
import { PERSONAL_DATA_RULES, SECRET_RULES, type SecretRule } from './secret-rules.js';

export {
  ibanValid,
  keyShaped,
  literalCredential,
  luhnValid,
  notPlaceholder,
  PERSONAL_DATA_RULES,
  SECRET_RULES,
  type SecretRule,
} from './secret-rules.js';

export interface SecretFinding {
  kind: string;
  label: string;
  category: 'secret' | 'personal';
  /** 1-based line and column where the secret starts. */
  line: number;
  column: number;
  /** Offset and length in the scanned text (for redaction). */
  index: number;
  length: number;
}

/** 1-based lines and columns of many offsets, in one pass over the text (the offsets in any order). */
export function textPositions(text: string, indexes: readonly number[]): { line: number; column: number }[] {
  const order = indexes.map((_, i) => i).sort((a, b) => indexes[a]! - indexes[b]!);
  const out: { line: number; column: number }[] = new Array(indexes.length);
  let line = 1;
  let lastNl = -1;
  let at = 0;
  for (const k of order) {
    const index = indexes[k]!;
    for (; at < index; at++) {
      if (text.charCodeAt(at) === 10) {
        line++;
        lastNl = at;
      }
    }
    out[k] = { line, column: index - lastNl };
  }
  return out;
}

/** What to do with personal data (payment cards, IBANs) in a space. */
export type PersonalDataPolicy = 'refuse' | 'redact' | 'allow';
export const PERSONAL_DATA_POLICIES: readonly PersonalDataPolicy[] = ['refuse', 'redact', 'allow'];

/**
 * The most text one scan reads: twice the largest content a memory may have (2,000,000 characters), so that a whole
 * write — content, name, tags and key — fits, and no request can make the scanner work longer than that costs
 * (docs/safety.md gives the time per megabyte). A longer text is refused by `guardText` with `TOO_LARGE`.
 */
export const MAX_SCAN_CHARS = 4_000_000;

/**
 * The text as the rules see it: NFKC (full-width and other compatibility forms folded), without any character that
 * renders as nothing (default-ignorable and format characters, derived from Unicode properties: zero-width
 * characters, joiners, bidi controls, soft hyphens, variation selectors, tag characters, Hangul fillers…), so that
 * no invisible character can split a key. Every scan runs on this form; findings (line, column, index) refer to it.
 */
export function normalizeForScan(text: string): string {
  return removeAllIgnorable(removeAllIgnorable(text).normalize('NFKC'));
}

/**
 * Each rule's pattern with the global flag, compiled once. `findSecrets` walks it with `exec` from `lastIndex` 0 and
 * runs to the end without yielding, so sharing it is safe; `matchAll` would clone the expression on every call, and
 * that cloning cost more than the scan itself on short texts.
 */
const globalPattern = memoByKey((rule: SecretRule): RegExp => {
  let flags = rule.pattern.flags;
  if (!flags.includes('g')) flags += 'g';
  // Group offsets (`indices`) for rules whose secret is a group.
  if (rule.group !== undefined && !flags.includes('d')) flags += 'd';
  return new RegExp(rule.pattern.source, flags);
});

interface Span {
  rule: SecretRule;
  index: number;
  length: number;
}

/** One rule's findings in a text, in order (they never overlap: each search goes on after the previous match). */
function ruleSpans(rule: SecretRule, text: string): Span[] {
  const out: Span[] = [];
  if (rule.hint && !rule.hint.test(text)) return out;
  const re = globalPattern(rule);
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // An empty match would match again at the same place: step past it.
    if (m[0].length === 0) re.lastIndex++;
    // A rule with a group and alternatives takes the first group that matched from `group` on.
    let value: string | undefined = m[0];
    let at = m.index;
    if (rule.group !== undefined) {
      value = undefined;
      let g = rule.group;
      for (; g < m.length; g++) {
        if (m[g] !== undefined && m[g] !== '') {
          value = m[g];
          break;
        }
      }
      if (value === undefined) continue;
      // The value is the tail of the match for every rule with a group (the secret comes last).
      // The value's own offset (the `d` flag gives each group's indices).
      at = m.indices?.[g]?.[0] ?? m.index + m[0].indexOf(value);
    }
    if (rule.accept && !rule.accept(value, m, text)) continue;
    out.push({ rule, index: at, length: value.length });
  }
  return out;
}

/**
 * Find secrets in a text (normalised first, see `normalizeForScan`). Overlapping findings keep the earliest, most
 * specific rule (the earlier rule of the list). Linear: each rule runs in time linear in the text (see secret-rules.ts),
 * overlaps are resolved by merging sorted lists, and positions are computed in one pass.
 */
export function findSecrets(raw: string, rules: readonly SecretRule[] = SECRET_RULES): SecretFinding[] {
  const text = normalizeForScan(raw);
  let kept: Span[] = [];
  for (const rule of rules) {
    const spans = ruleSpans(rule, text);
    if (spans.length === 0) continue;
    // Keep the spans that overlap nothing kept by an earlier rule, then merge both sorted lists.
    const fresh: Span[] = [];
    let k = 0;
    for (const s of spans) {
      while (k < kept.length && kept[k]!.index + kept[k]!.length <= s.index) k++;
      const next = kept[k];
      if (next !== undefined && next.index < s.index + s.length) continue;
      fresh.push(s);
    }
    if (fresh.length === 0) continue;
    const merged: Span[] = [];
    let i = 0;
    let j = 0;
    while (i < kept.length || j < fresh.length) {
      if (j >= fresh.length || (i < kept.length && kept[i]!.index <= fresh[j]!.index)) merged.push(kept[i++]!);
      else merged.push(fresh[j++]!);
    }
    kept = merged;
  }
  const positions = textPositions(
    text,
    kept.map((s) => s.index),
  );
  return kept.map((s, i) => ({
    kind: s.rule.kind,
    label: s.rule.label,
    category: s.rule.category ?? 'secret',
    ...positions[i]!,
    index: s.index,
    length: s.length,
  }));
}

/**
 * Refuse a text holding a secret: `SECRET_DETECTED` naming the kind(s) and where, never the value.
 * `what` names the field for the message ("content", "notebook MEMORY.md", "fact value").
 */
export function assertNoSecrets(text: string, what = 'content', rules: readonly SecretRule[] = SECRET_RULES): void {
  const findings = findSecrets(text, rules);
  if (findings.length > 0) throw secretRefusal(what, findings);
}

/** Where a secret was found, for a refusal: its kind, label and position, and the scanner that found it if not mem. */
export interface SecretLocation {
  kind: string;
  label: string;
  line: number;
  column: number;
  /** The id of the scanner (`SecretScanner.id`) that found it; absent for mem's own rules. */
  scanner?: string;
}

/**
 * The one `SECRET_DETECTED` refusal, for mem's own rules and for a stack's secret scanner alike: it names the kind(s),
 * where, and which scanner found them, never the value.
 */
export function secretRefusal(what: string, found: readonly SecretLocation[]): MemError {
  const where = found
    .slice(0, 5)
    .map(
      (f) =>
        `${f.label} (${f.kind}${f.scanner === undefined ? '' : `, found by ${f.scanner}`}) at line ${f.line}, column ${f.column}`,
    )
    .join('; ');
  return new MemError(
    'SECRET_DETECTED',
    `Refused: the ${what} contains ${found.length === 1 ? 'a secret' : `${found.length} secrets`}: ${where}. Memory must never hold credentials: remove the secret (or replace it with a reference such as "the key in the team vault") and store again.`,
    {
      details: {
        findings: found.map(({ kind, line, column, scanner }) =>
          scanner === undefined ? { kind, line, column } : { kind, line, column, scanner },
        ),
      },
    },
  );
}

/** Replace each range (sorted, not overlapping) of a text by `[REDACTED:<kind>]`. */
export function redactRanges(text: string, ranges: readonly { kind: string; index: number; length: number }[]): string {
  let out = '';
  let at = 0;
  for (const f of ranges) {
    out += `${text.slice(at, f.index)}[REDACTED:${f.kind}]`;
    at = f.index + f.length;
  }
  return out + text.slice(at);
}

/**
 * Replace every secret by `[REDACTED:<kind>]` (used for transcripts, which must not refuse a turn). A text with a
 * finding comes back in its normalised form (see `normalizeForScan`); a clean text comes back unchanged.
 */
export function redactSecrets(text: string, rules: readonly SecretRule[] = SECRET_RULES): string {
  const findings = findSecrets(text, rules);
  if (findings.length === 0) return text;
  return redactRanges(normalizeForScan(text), findings);
}

/**
 * The one guard of every free-text field written to memory (content, names, tags, keys, edit intents, rating notes,
 * task ids, episode tools, fact user/topic/key/value, notebook files and file names): a secret is refused with
 * `SECRET_DETECTED`; personal data (payment cards, IBANs) is refused with `PERSONAL_DATA_DETECTED`, redacted, or
 * allowed, by `personalData` (default refuse). Returns the text to store. `what` names the field in messages.
 */
export function guardText(raw: string, what: string, personalData: PersonalDataPolicy = 'refuse'): string {
  assertScannable(raw.length, what);
  assertNoSecrets(raw, what);
  // What is kept is what a reader sees: characters that render as nothing are dropped (docs/safety.md).
  const text = stripHidden(raw);
  if (personalData === 'allow') return text;
  const findings = findSecrets(text, PERSONAL_DATA_RULES);
  if (findings.length === 0) return text;
  if (personalData === 'redact') return redactSecrets(text, PERSONAL_DATA_RULES);
  const where = findings
    .slice(0, 5)
    .map((f) => `${f.label} (${f.kind}) at line ${f.line}, column ${f.column}`)
    .join('; ');
  throw new MemError(
    'PERSONAL_DATA_DETECTED',
    `Refused: the ${what} contains personal data: ${where}. Payment card numbers and bank account numbers are not kept in memory in this space: leave the number out (e.g. "the card ending 4242"), or ask the operator to set the space's personal-data policy to redact or allow.`,
    { details: { findings: findings.map(({ kind, line, column }) => ({ kind, line, column })) } },
  );
}

/** `guardText` over several fields at once (undefined and null are skipped); returns nothing, throws on the first. */
export function guardFields(
  fields: Record<string, string | null | undefined | readonly string[]>,
  personalData: PersonalDataPolicy = 'refuse',
): void {
  let total = 0;
  for (const value of Object.values(fields)) {
    if (value === undefined || value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) total += v.length;
  }
  assertScannable(total, 'fields of this write');
  for (const [what, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) guardText(v, what, personalData);
  }
}

/** The cap on the work of one scan: more than `MAX_SCAN_CHARS` characters is refused with `TOO_LARGE`. */
export function assertScannable(length: number, what: string): void {
  if (length <= MAX_SCAN_CHARS) return;
  throw new MemError(
    'TOO_LARGE',
    `The ${what} is ${length} characters long, more than the ${MAX_SCAN_CHARS} characters one write may carry (each is checked for secrets). Split it into smaller writes.`,
  );
}

/** The personal-data setting of a stack: one policy for every space, or a default with per-space exceptions. */
export type PersonalDataSetting =
  | PersonalDataPolicy
  | { default?: PersonalDataPolicy; spaces?: Readonly<Record<string, PersonalDataPolicy>> };

/** The policy of one space under a setting (refuse when nothing is set). */
export function personalDataPolicy(setting: PersonalDataSetting | undefined, space: string): PersonalDataPolicy {
  if (setting === undefined) return 'refuse';
  if (typeof setting === 'string') return setting;
  return setting.spaces?.[space] ?? setting.default ?? 'refuse';
}
