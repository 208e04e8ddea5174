/**
 * The reversible mapping between a LangGraph item address (namespace labels + item key) and a mem key.
 *
 * `/<root>/<label 1>/…/<label n>/<item key>`: every label and the item key become one key segment. Characters mem
 * keys allow in a segment and that need no escape (`a-z`, `0-9`, `-`) stay as they are; every other character
 * (capitals, `.`, `_`, spaces, any Unicode) is written as `_` followed by its UTF-8 bytes in two lowercase hex digits
 * each (`A` → `_41`, `.` → `_2e`, `é` → `_c3_a9`). An empty label or key is the lone segment `_`. Decoding reverses it.
 */
import { MemError } from '@mem/core';

const PLAIN = /^[a-z0-9-]$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** One label (or item key) as a key segment. */
export function encodeSegment(label: string): string {
  if (label === '') return '_';
  let out = '';
  for (const ch of label) {
    if (PLAIN.test(ch)) out += ch;
    else for (const byte of encoder.encode(ch)) out += `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** A key segment back to its label; undefined when the segment was not written by `encodeSegment`. */
export function decodeSegment(segment: string): string | undefined {
  if (segment === '_') return '';
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; ) {
    const ch = segment[i]!;
    if (ch === '_') {
      const hex = segment.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else if (PLAIN.test(ch)) {
      bytes.push(ch.charCodeAt(0));
      i += 1;
    } else return undefined;
  }
  try {
    return decoder.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** The key prefix (ending in `/`) under which every item of `namespace` (and of deeper namespaces) lives. */
export function namespacePrefix(root: string, namespace: readonly string[]): string {
  return `${[root, ...namespace.map(encodeSegment)].join('/')}/`;
}

/** The mem key of one item; INVALID_INPUT when it would be longer than mem allows. */
export function itemKey(root: string, namespace: readonly string[], key: string, maxLength = 200): string {
  const full = `${namespacePrefix(root, namespace)}${encodeSegment(key)}`;
  if (full.length > maxLength) {
    throw new MemError(
      'INVALID_INPUT',
      `The LangGraph item [${namespace.map((l) => JSON.stringify(l)).join(', ')}] / ${JSON.stringify(key)} maps to a mem key of ${full.length} characters ("${full.slice(0, 60)}…"); mem keys hold at most ${maxLength}. Shorten the namespace labels or the item key (capitals, periods, underscores and non-ASCII characters take 3 characters per byte).`,
      { details: { namespace: [...namespace], key, length: full.length, max: maxLength } },
    );
  }
  return full;
}

/** The namespace and item key of a mem key under `root`, or undefined when the key was not written by this mapping. */
export function parseItemKey(root: string, key: string): { namespace: string[]; key: string } | undefined {
  if (!key.startsWith(`${root}/`)) return undefined;
  const segments = key.slice(root.length + 1).split('/');
  if (segments.length < 2) return undefined;
  const decoded = segments.map(decodeSegment);
  if (decoded.some((s) => s === undefined)) return undefined;
  const labels = decoded as string[];
  return { namespace: labels.slice(0, -1), key: labels[labels.length - 1]! };
}
