/**
 * Text that goes into a block a model reads (the recall block, the notebook injection, provenance labels) is data,
 * never structure. `inertText` is the one place that makes stored text inert there: whatever it holds, it can not
 * open a Markdown heading, a block quote, a setext underline, an HTML/XML-like tag (`<memory>`, `</memory>`,
 * `<!-- … -->`) or a code fence once rendered. Pure; every block renderer calls it.
 */

export interface InertOptions {
  /** Keep line breaks (each line made inert on its own); otherwise every run of white space becomes one space. */
  multiline?: boolean;
}

// C0 controls except tab and line feed, DEL, C1 controls; zero-width and bidi controls that can hide or reorder text.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** One line made inert (no line breaks inside). */
function inertLine(line: string): string {
  let out = line
    // A tag opener: `<` before a letter, `/`, `!` or `?`. The entity keeps it readable and never a tag.
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
    // Fences: three or more backticks or tildes anywhere are broken up with backslashes.
    .replace(/`{3,}|~{3,}/g, (run) => run.replace(/[`~]/g, (c) => `\\${c}`));
  // Line-start structure: a heading, a block quote, or a setext underline (`===` / `---` alone on the line).
  if (/^\s{0,3}(?:#|>|=+\s*$|-{2,}\s*$)/.test(out)) out = out.replace(/^(\s*)/, '$1\\');
  return out;
}

/** Make `text` inert for a model-facing block (see the module comment). */
export function inertText(text: string, options: InertOptions = {}): string {
  const clean = String(text).replace(/\r\n?/g, '\n').replace(INVISIBLE, '').replace(/\t/g, ' ');
  if (!options.multiline) return inertLine(clean.replace(/\s+/g, ' ').trim());
  return clean.split('\n').map(inertLine).join('\n');
}
