/** Splitting long content into chunks (docs/writing.md). Pure; joining every chunk's body gives back the input exactly. */

export interface ChunkOptions {
  /** Content shorter than this is one chunk; longer content is split so that chunks stay near this size. */
  maxChars: number;
  /** Each later piece of a section starts with this many characters of the piece before. */
  overlap: number;
  /** Pieces shorter than this are merged into a neighbour, never dropped. */
  minChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 2000, overlap: 100, minChars: 50 };

export interface Chunk {
  /** Heading path, overlap, then body: the text stored, searched and embedded. */
  content: string;
  /** Where `body` starts inside `content`. */
  bodyStart: number;
  /** This chunk's own slice of the input. */
  body: string;
  /** `A > B` heading path of the section ('' before the first heading). */
  headingPath: string;
}

const HEADING = /^(#{1,3})[ \t]+(.+?)[ \t#]*$/;

interface Section {
  path: string;
  text: string;
}

function sections(text: string): Section[] {
  const out: Section[] = [];
  const stack: string[] = [];
  let start = 0;
  let path = '';
  let offset = 0;
  const lines = text.split(/(?<=\n)/);
  for (const line of lines) {
    const m = HEADING.exec(line.replace(/\r?\n$/, ''));
    if (m && offset > start) {
      out.push({ path, text: text.slice(start, offset) });
      start = offset;
    }
    if (m) {
      const level = m[1]!.length;
      stack.length = level - 1;
      stack[level - 1] = m[2]!.trim();
      path = stack.filter((s) => s !== undefined && s !== '').join(' > ');
    }
    offset += line.length;
  }
  if (offset > start || out.length === 0) out.push({ path, text: text.slice(start) });
  return out;
}

const SEPARATORS: RegExp[] = [/\n[ \t]*\n/g, /\n/g, /(?<=[.!?。！？])\s+/g, /\s+/g];

/** Split `text` into contiguous slices of at most `budget` characters, preferring coarse boundaries. */
function splitToFit(text: string, budget: number, level = 0): string[] {
  if (text.length <= budget) return [text];
  if (level >= SEPARATORS.length) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += budget) {
      // Do not cut a surrogate pair in half.
      let end = Math.min(i + budget, text.length);
      if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
      out.push(text.slice(i, end));
      i = end - budget;
    }
    return out;
  }
  const re = new RegExp(SEPARATORS[level]!.source, 'g');
  const segments: string[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const cut = (m.index ?? 0) + m[0].length;
    if (cut <= last || cut >= text.length) continue;
    segments.push(text.slice(last, cut));
    last = cut;
  }
  segments.push(text.slice(last));
  if (segments.length === 1) return splitToFit(text, budget, level + 1);
  const pieces: string[] = [];
  let current = '';
  for (const seg of segments) {
    if (seg.length > budget) {
      if (current) pieces.push(current);
      current = '';
      pieces.push(...splitToFit(seg, budget, level + 1));
    } else if (current.length + seg.length <= budget) {
      current += seg;
    } else {
      pieces.push(current);
      current = seg;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

/** Split content into chunks. Short content (under `maxChars`) is one chunk with no prefix. */
export function chunkContent(text: string, options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  if (text.length < options.maxChars) return [{ content: text, bodyStart: 0, body: text, headingPath: '' }];
  interface Piece {
    path: string;
    body: string;
    /** Overlap taken from the previous piece of the same section. */
    overlap: string;
  }
  const pieces: Piece[] = [];
  for (const section of sections(text)) {
    const path = section.path.length > 200 ? `${section.path.slice(0, 199)}…` : section.path;
    const prefixLen = path ? path.length + 2 : 0;
    const budget = Math.max(options.minChars * 2, options.maxChars - prefixLen - options.overlap);
    const parts = splitToFit(section.text, budget);
    parts.forEach((body, i) => {
      const prev = i > 0 ? parts[i - 1]! : '';
      pieces.push({ path, body, overlap: i > 0 ? prev.slice(-options.overlap) : '' });
    });
  }
  // Merge pieces that are too small into a neighbour (the previous one, or the next for the first).
  const merged: Piece[] = [];
  for (const piece of pieces) {
    const prev = merged[merged.length - 1];
    if (prev && (piece.body.length < options.minChars || prev.body.length < options.minChars)) {
      prev.body += piece.body;
      continue;
    }
    merged.push({ ...piece });
  }
  return merged.map((p) => {
    const head = p.path ? `${p.path}\n\n` : '';
    const content = head + p.overlap + p.body;
    return { content, bodyStart: content.length - p.body.length, body: p.body, headingPath: p.path };
  });
}

/** Join chunks back into the original content. */
export function reassemble(chunks: readonly { content: string; bodyStart: number }[]): string {
  return chunks.map((c) => c.content.slice(c.bodyStart)).join('');
}
