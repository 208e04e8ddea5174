/** Small readers every framework adapter needs over what its framework hands it. */

/**
 * The text of a chat message's content as frameworks shape it (a string, or an array of blocks): text blocks joined
 * by line breaks, any other block (an image, a file) as `[<type>]`; tool-call blocks are left to the caller.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (block && typeof block === 'object') {
      const b = block as { type?: unknown; text?: unknown };
      if (typeof b.text === 'string' && (b.type === 'text' || b.type === undefined)) parts.push(b.text);
      else if (typeof b.type === 'string' && b.type !== 'tool_use' && b.type !== 'tool_call') parts.push(`[${b.type}]`);
    }
  }
  return parts.join('\n');
}

/** True when `b` is exactly the JSON value `a` (no undefined fields, Dates, NaN or class instances in `b`). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== 'object') return Object.is(a, b) || (a === 0 && b === 0);
  if (typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const proto = Object.getPrototypeOf(b);
  if (Array.isArray(b) || (proto !== Object.prototype && proto !== null)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameJson((a as never)[k], (b as never)[k]));
}
