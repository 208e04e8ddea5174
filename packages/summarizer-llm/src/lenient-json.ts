/**
 * Reading JSON out of what a (small, local) model actually writes: prose around it, code fences, `<think>` blocks,
 * trailing or missing commas, single or typographic quotes, unquoted keys, Python literals, comments, a bracket
 * left open or closed wrongly, and an answer cut off by the token limit (the truncated last element is dropped,
 * never half-kept). Pure functions, no dependency.
 *
 * The repair is one pass over the text that re-emits it as strict JSON while tracking the open containers; it never
 * evaluates anything. What it changed is reported in words, so a caller can log it.
 */
import type { JsonValue } from '@mem/core';

export interface LenientParse {
  value: JsonValue;
  /** What had to be done to read it, in words (empty when the text was strict JSON). */
  repairs: string[];
}

type Frame = {
  kind: 'obj' | 'arr';
  /** obj: key → colon → value → after; arr: value → after. */
  state: 'key' | 'colon' | 'value' | 'after';
  /** Items (members or elements) begun so far. */
  count: number;
  /** A comma was read and no item has begun since. */
  pendingComma: boolean;
  /** Where the output can be cut so that everything before it is complete (arrays, and a root object). */
  safe: { length: number; closers: string } | null;
};

const OPENERS: Record<string, 'obj' | 'arr'> = { '{': 'obj', '[': 'arr' };
const CLOSER = { obj: '}', arr: ']' } as const;
const CLOSING_QUOTE: Record<string, string> = { '"': '"', "'": "'", '\u201c': '\u201d', '\u2018': '\u2019' };
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LOOSE_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const KEY_WORD = /[\p{L}\p{N}_$.-]/u;

interface ScanResult {
  text: string;
  repairs: Set<string>;
}

/** Re-emit the JSON value starting at `start` (a `{` or `[`) as strict JSON, or null when nothing usable is left. */
function scan(src: string, start: number): ScanResult | null {
  const repairs = new Set<string>();
  const stack: Frame[] = [];
  let out = '';
  let i = start;
  let finished = false;

  const top = (): Frame | undefined => stack[stack.length - 1];
  const closers = (): string =>
    stack
      .slice()
      .reverse()
      .map((f) => CLOSER[f.kind])
      .join('');

  /** A value ended (a scalar, or a container that just closed). */
  const valueDone = (): void => {
    const f = top();
    if (!f) {
      finished = true;
      return;
    }
    f.state = 'after';
    if (f.kind === 'arr' || stack.length === 1) f.safe = { length: out.length, closers: closers() };
  };

  /** An item begins: writes the comma it needs and says whether it stands where a key or a value goes. */
  const begin = (): 'key' | 'value' => {
    const f = top()!;
    f.pendingComma = false;
    if (f.state === 'after') {
      repairs.add('inserted a missing comma');
      f.state = f.kind === 'obj' ? 'key' : 'value';
    }
    if (f.kind === 'arr' || f.state === 'key') {
      if (f.count++ > 0) out += ',';
      return f.kind === 'arr' ? 'value' : 'key';
    }
    if (f.state === 'colon') {
      repairs.add('inserted a missing colon');
      out += ':';
      f.state = 'value';
    }
    return 'value';
  };

  /** Emit a scalar value or key that has been read. */
  const emit = (json: string, role: 'key' | 'value'): void => {
    out += json;
    if (role === 'key') top()!.state = 'colon';
    else valueDone();
  };

  while (i < src.length && !finished) {
    const c = src[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const nl = src.indexOf('\n', i);
      i = nl === -1 ? src.length : nl + 1;
      repairs.add('removed comments');
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end === -1 ? src.length : end + 2;
      repairs.add('removed comments');
      continue;
    }
    const f = top();
    const opener = OPENERS[c];
    if (opener) {
      if (f && f.kind === 'obj' && (f.state === 'key' || f.state === 'after')) {
        // A container where a key belongs: nothing sensible to make of it.
        repairs.add('dropped stray characters');
        i++;
        continue;
      }
      if (f) begin();
      out += c;
      stack.push({
        kind: opener,
        state: opener === 'obj' ? 'key' : 'value',
        count: 0,
        pendingComma: false,
        safe: null,
      });
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      const want = c === '}' ? 'obj' : 'arr';
      if (!stack.some((s) => s.kind === want)) {
        repairs.add('dropped stray characters');
        i++;
        continue;
      }
      // Close what was left open inside (a forgotten `}` before `]`, say), then the container itself.
      for (;;) {
        const g = top()!;
        if (g.kind === 'obj' && g.state === 'colon') {
          out += ':null';
          repairs.add('gave a key without a value null');
        } else if (g.kind === 'obj' && g.state === 'value') {
          out += 'null';
          repairs.add('gave a key without a value null');
        }
        if (g.pendingComma) repairs.add('removed a trailing comma');
        if (g.kind !== want) repairs.add('closed a bracket left open');
        out += CLOSER[g.kind];
        stack.pop();
        valueDone();
        if (g.kind === want) break;
      }
      i++;
      continue;
    }
    if (!f) {
      i++;
      continue;
    }
    if (c === ',') {
      if (f.state === 'after') {
        f.state = f.kind === 'obj' ? 'key' : 'value';
        f.pendingComma = true;
      } else {
        repairs.add('removed an extra comma');
      }
      i++;
      continue;
    }
    if (c === ':' || (c === '=' && f.kind === 'obj' && f.state === 'colon')) {
      if (f.kind === 'obj' && f.state === 'colon') {
        out += ':';
        f.state = 'value';
      } else {
        repairs.add('dropped stray characters');
      }
      i++;
      continue;
    }
    const close = CLOSING_QUOTE[c];
    if (close) {
      if (c !== '"') repairs.add('turned single or typographic quotes into double quotes');
      const read = readString(src, i + 1, close);
      if (!read) break; // cut off inside a string
      if (read.repaired) repairs.add('escaped quotes or line breaks inside a string');
      const role = begin();
      emit(JSON.stringify(read.value), role);
      i = read.end;
      continue;
    }
    // A bare word: an unquoted key, or a literal, a number or unquoted text as a value.
    const role = f.kind === 'obj' && (f.state === 'key' || f.state === 'after') ? 'key' : 'value';
    if (role === 'key') {
      let j = i;
      while (j < src.length && KEY_WORD.test(src[j]!)) j++;
      if (j === i) {
        repairs.add('dropped stray characters');
        i++;
        continue;
      }
      begin();
      repairs.add('quoted unquoted keys');
      emit(JSON.stringify(src.slice(i, j)), 'key');
      i = j;
      continue;
    }
    let j = i;
    while (j < src.length && !',}]\n'.includes(src[j]!)) j++;
    if (j >= src.length) break; // cut off inside a bare value
    const word = src.slice(i, j).trim();
    begin();
    emit(bareValue(word, repairs), 'value');
    i = j;
  }

  if (finished) {
    if (src.slice(i).trim() !== '') repairs.add('ignored text around the JSON');
    return { text: out, repairs };
  }
  // The text ended with containers open: keep only complete items of the outermost list (or of a root object).
  const list = stack.find((s) => s.kind === 'arr');
  const holder = list ?? (stack[0]?.kind === 'obj' ? stack[0] : undefined);
  if (!holder?.safe) return null;
  if (out.slice(holder.safe.length).trim() === '') repairs.add('closed brackets the answer left open');
  else repairs.add('dropped a truncated last element');
  return { text: out.slice(0, holder.safe.length) + holder.safe.closers, repairs };
}

/**
 * A string body from `from` up to its closing quote. A quote closes the string only when what follows it (after
 * spaces) is `,` `:` `}` `]`, a line break, the end, or a quoted key and a colon (a missing comma), so a stray quote
 * or apostrophe inside text stays text.
 * Null when the text ends first.
 */
function readString(
  src: string,
  from: number,
  quote: string,
): { value: string; end: number; repaired: boolean } | null {
  let value = '';
  let repaired = false;
  let j = from;
  while (j < src.length) {
    const c = src[j]!;
    if (c === '\\') {
      const next = src[j + 1];
      if (next === undefined) return null;
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(j + 2, j + 6))) {
        value += String.fromCharCode(Number.parseInt(src.slice(j + 2, j + 6), 16));
        j += 6;
      } else {
        value += SIMPLE_ESCAPES[next] ?? next;
        j += 2;
      }
      continue;
    }
    if (c === quote) {
      let k = j + 1;
      while (k < src.length && (src[k] === ' ' || src[k] === '\t')) k++;
      const after = src[k];
      if (after === undefined || ',:}]\n\r'.includes(after)) return { value, end: j + 1, repaired };
      // `"a" "next": …`: the comma before the next key is missing, the quote does close.
      if (after === '"' && /^"[^"\n]*"\s*:/.test(src.slice(k))) return { value, end: j + 1, repaired };
      repaired = true;
    } else if (c === '\n') {
      repaired = true;
    }
    value += c;
    j++;
  }
  return null;
}

function bareValue(word: string, repairs: Set<string>): string {
  switch (word) {
    case 'true':
    case 'false':
    case 'null':
      return word;
    case 'True':
    case 'False':
      repairs.add('turned Python literals into JSON');
      return word.toLowerCase();
    case 'None':
      repairs.add('turned Python literals into JSON');
      return 'null';
    case 'undefined':
    case 'NaN':
    case 'Infinity':
    case '-Infinity':
      repairs.add('turned non-JSON literals into null');
      return 'null';
  }
  if (NUMBER.test(word)) return word;
  if (LOOSE_NUMBER.test(word) && Number.isFinite(Number(word))) {
    repairs.add('rewrote numbers as JSON numbers');
    return String(Number(word));
  }
  repairs.add('quoted unquoted text');
  return JSON.stringify(word);
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
  const fences = fenceBodies(body);
  const sources: { src: string; notes: string[] }[] = [
    ...fences.map((src) => ({ src, notes: [...notes, 'took the JSON out of a code fence'] })),
    { src: body, notes },
  ];
  for (const { src, notes: base } of sources) {
    const trimmed = src.trim();
    try {
      const strict = JSON.parse(trimmed) as JsonValue;
      if (accept(strict)) return { value: strict, repairs: [...base] };
    } catch {
      // not strict JSON: repair below
    }
    let tries = 0;
    for (let at = 0; at < src.length && tries < 25; at++) {
      const c = src[at];
      if (c !== '[' && c !== '{') continue;
      tries++;
      const found = tryScan(src, at, accept, base);
      // Cut off before anything complete: every later bracket lies inside this one, so none can do better.
      if (found === 'truncated') break;
      if (!found) continue;
      if (c === '{' && !Array.isArray(found.value)) {
        // `{…}\n{…}`: several objects without a list around them.
        const rest = src.slice(at);
        const listed = tryScan(
          `[${rest}]`,
          0,
          (v) => Array.isArray(v) && v.length > 1 && v.every((x) => isObject(x)) && accept(v),
          base,
        );
        if (listed && listed !== 'truncated')
          return { value: listed.value, repairs: [...listed.repairs, 'read several objects as a list'] };
      }
      return found;
    }
  }
  return null;
}

const isObject = (v: JsonValue): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

function tryScan(
  src: string,
  at: number,
  accept: (value: JsonValue) => boolean,
  base: readonly string[],
): LenientParse | 'truncated' | null {
  const result = scan(src, at);
  if (!result) return 'truncated';
  let value: JsonValue;
  try {
    value = JSON.parse(result.text) as JsonValue;
  } catch {
    return null; // cannot happen by construction; never trust that blindly
  }
  if (!accept(value)) return null;
  const repairs = [...base];
  if (at > 0 && src.slice(0, at).trim() !== '') result.repairs.add('ignored text around the JSON');
  repairs.push(...result.repairs);
  return { value, repairs };
}
