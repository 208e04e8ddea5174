/**
 * Reading JSON out of what a (small, local) model actually writes. The repair of the JSON itself — trailing or
 * missing commas, single or typographic quotes, unquoted keys, Python literals, comments, a bracket left open or
 * closed wrongly — is `jsonrepair`'s. This file adds what a model's answer needs around it: the JSON taken out of
 * code fences, `<think>` blocks and prose; several objects with no list around them read as a list; and an answer cut
 * off by the token limit losing its truncated last element (never half-kept). Pure functions; nothing is evaluated.
 * What had to be done is reported in words, so a caller can log it.
 */
import type { JsonValue } from '@mem/core';
import { JSONRepairError, jsonrepair } from 'jsonrepair';

export interface LenientParse {
  value: JsonValue;
  /** What had to be done to read it, in words (empty when the text was strict JSON). */
  repairs: string[];
}

/**
 * Appended to a text to learn whether its root value is closed: after a closed root, `jsonrepair` refuses it as an
 * unexpected character right there; inside an open value it becomes part of that value. A private-use character,
 * so that no answer holds it.
 */
const PROBE = '\uE000';

/** Repaired JSON, or null when `jsonrepair` cannot make JSON of the text. */
function repaired(text: string): string | null {
  try {
    return jsonrepair(text);
  } catch (error) {
    if (error instanceof JSONRepairError) return null;
    throw error;
  }
}

/** Whether the value that `text` starts with is closed by the text's last character. */
function closesAtEnd(text: string): boolean {
  try {
    jsonrepair(text + PROBE);
    return false;
  } catch (error) {
    return error instanceof JSONRepairError && error.position >= text.length;
  }
}

/** What a repair changed, told by the marks it took away (a mark inside a string is kept, so it never counts). */
const REPAIR_MARKS: readonly [RegExp, string][] = [
  [/,\s*[\]}]/g, 'removed a trailing comma'],
  [/['\u2018\u2019\u201c\u201d]/g, 'turned single or typographic quotes into double quotes'],
  [/[{,]\s*[\p{L}_$][\p{L}\p{N}_$.-]*\s*:/gu, 'quoted unquoted keys'],
  [/\b(?:True|False|None)\b/g, 'turned Python literals into JSON'],
  [/\/\/|\/\*/g, 'removed comments'],
];

function describeRepair(before: string, after: string): string[] {
  const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;
  return REPAIR_MARKS.filter(([re]) => count(before, re) > count(after, re)).map(([, words]) => words);
}

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A cut answer: keep only the complete items of the outermost list that was still open, or, when no list was, the
 * complete members of the root object. `cut` is the repaired text, `probed` the repaired text plus `PROBE`: an item
 * the probe changed was still being written. Null when nothing complete is left.
 */
function completeItems(cut: JsonValue, probed: JsonValue | undefined): { value: JsonValue; dropped: boolean } | null {
  const root = cut;
  let a: JsonValue | undefined = cut;
  let b: JsonValue | undefined = probed;
  for (;;) {
    if (Array.isArray(a)) {
      const last = a.length - 1;
      const open = last >= 0 && (!Array.isArray(b) || JSON.stringify(a[last]) !== JSON.stringify(b[last]));
      if (open) a.pop();
      return a.length === 0 ? null : { value: root, dropped: open };
    }
    if (!isObject(a)) return null;
    const key = Object.keys(a).at(-1);
    if (key === undefined) return null;
    const other: JsonValue | undefined = isObject(b) ? b[key] : undefined;
    if (other !== undefined && JSON.stringify(a[key]) === JSON.stringify(other)) return { value: root, dropped: false };
    const inner: JsonValue = a[key]!;
    if (typeof inner === 'object' && inner !== null) {
      a = inner;
      b = other;
      continue;
    }
    // No list was open: the root object keeps its complete members.
    if (!isObject(root)) return null;
    delete root[Object.keys(root).at(-1)!];
    return Object.keys(root).length === 0 ? null : { value: root, dropped: true };
  }
}

/**
 * The value starting at `src[at]` (a `[` or `{`): the shortest text from there that closes it, repaired; or, when the
 * text ends first, its complete items. 'truncated' when the text ends before anything complete.
 */
function readAt(src: string, at: number): LenientParse | 'truncated' | null {
  const repairs: string[] = [];
  if (at > 0 && src.slice(0, at).trim() !== '') repairs.push('ignored text around the JSON');
  for (let end = at + 1; end <= src.length; end++) {
    const c = src[end - 1];
    if (c !== ']' && c !== '}') continue;
    const text = src.slice(at, end);
    if (!closesAtEnd(text)) continue;
    const json = repaired(text);
    if (json === null) return null;
    if (src.slice(end).trim() !== '' && !repairs.length) repairs.push('ignored text around the JSON');
    if (json !== text) {
      const words = describeRepair(text, json);
      repairs.push(...(words.length ? words : ['repaired malformed JSON']));
    }
    return { value: JSON.parse(json) as JsonValue, repairs };
  }
  const text = src.slice(at).trimEnd();
  const json = repaired(text);
  if (json === null) return 'truncated';
  const probed = repaired(text + PROBE);
  const kept = completeItems(JSON.parse(json) as JsonValue, probed === null ? undefined : JSON.parse(probed));
  if (kept === null) return 'truncated';
  repairs.push(...describeRepair(text, json));
  repairs.push(kept.dropped ? 'dropped a truncated last element' : 'closed brackets the answer left open');
  return { value: kept.value, repairs };
}

/** Bodies of Markdown code fences (closed or left open), in order. */
function fenceBodies(text: string): string[] {
  const bodies: string[] = [];
  const re = /```[^\n`]*\n?([\s\S]*?)(?:```|$)/g;
  for (const m of text.matchAll(re)) if (m[1]?.trim()) bodies.push(m[1]);
  return bodies;
}

/**
 * Read the first JSON container in `text` that `accept` likes (default: any object or array), repairing what small
 * models break. Tries, in order: each code fence, then the whole text; within each, strict JSON first, then each
 * `[` or `{` as a start (so a bracket in the prose before the JSON does not win, and a wrapper that `accept` does not
 * like can still yield what it holds); a run of objects with no list around them is read as a list. Null when
 * nothing acceptable can be read.
 */
export function parseLenientJson(
  text: string,
  accept: (value: JsonValue) => boolean = (v) => typeof v === 'object' && v !== null,
): LenientParse | null {
  const notes: string[] = [];
  let body = text;
  if (/<think>/i.test(body)) {
    body = body.replace(/<think>[\s\S]*?(?:<\/think>|$)/gi, '');
    notes.push('removed a <think> block');
  }
  const sources: { src: string; notes: string[] }[] = [
    ...fenceBodies(body).map((src) => ({ src, notes: [...notes, 'took the JSON out of a code fence'] })),
    { src: body, notes },
  ];
  for (const { src, notes: base } of sources) {
    try {
      const strict = JSON.parse(src.trim()) as JsonValue;
      if (accept(strict)) return { value: strict, repairs: [...base] };
    } catch {
      // not strict JSON: repair below
    }
    let tries = 0;
    for (let at = 0; at < src.length && tries < 25; at++) {
      const c = src[at];
      if (c !== '[' && c !== '{') continue;
      tries++;
      const found = readAt(src, at);
      // Cut off before anything complete: every later bracket lies inside this one, so none can do better.
      if (found === 'truncated') break;
      if (!found || !accept(found.value)) continue;
      if (c === '{' && !Array.isArray(found.value)) {
        // `{…}\n{…}`: several objects without a list around them.
        const listed = readAt(`[${src.slice(at)}]`, 0);
        if (
          listed &&
          listed !== 'truncated' &&
          Array.isArray(listed.value) &&
          listed.value.length > 1 &&
          listed.value.every(isObject) &&
          accept(listed.value)
        )
          return { value: listed.value, repairs: [...base, ...listed.repairs, 'read several objects as a list'] };
      }
      return { value: found.value, repairs: [...base, ...found.repairs] };
    }
  }
  return null;
}
