/**
 * Text that goes into a block a model reads (the recall block, the notebook injection, provenance labels) is data,
 * never structure. `inertText` is the one place that makes stored text inert there: whatever it holds, it can not
 * open a Markdown heading, a block quote, a setext underline, an HTML/XML-like tag (`<memory>`, `</memory>`,
 * `<!-- … -->`), a code fence, a link or an image once rendered, nor imitate mem's provenance brackets — also when
 * written with look-alike characters; and characters that render as nothing (hidden-text.ts) never reach the model.
 * Pure; every block renderer calls it.
 */

import { stripHidden } from './hidden-text.js';

export interface InertOptions {
  /** Keep line breaks (each line made inert on its own); otherwise every run of white space becomes one space. */
  multiline?: boolean;
}

// C0 controls except tab and line feed, DEL, C1 controls. Characters that render as nothing go through stripHidden.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Look-alikes of the characters that make structure: full-width, small and vertical forms whose compatibility form
 * (NFKC) is ASCII punctuation (`＜/memory＞`, `﹤`, `［`), and angle brackets that no normalisation folds (`‹ › 〈 〉 ⟨ ⟩`).
 * Folded to the ASCII character first, they are then escaped like it.
 */
const LOOKALIKES: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  const ranges: [number, number][] = [
    [0xfe10, 0xfe1f],
    [0xfe30, 0xfe6f],
    [0xff01, 0xff5e],
  ];
  for (const [from, to] of ranges) {
    for (let cp = from; cp <= to; cp++) {
      const ch = String.fromCodePoint(cp);
      const folded = ch.normalize('NFKC');
      if (folded.length === 1 && /[!-/:-@[-`{-~]/.test(folded)) map.set(ch, folded);
    }
  }
  for (const ch of '\u2039\u3008\u2329\u27e8\u276c\u276e\u02c2\u1438\u2aa1') map.set(ch, '<');
  for (const ch of '\u203a\u3009\u232a\u27e9\u276d\u276f\u02c3\u1433\u2aa2') map.set(ch, '>');
  return map;
})();
const LOOKALIKE = new RegExp(`[${[...LOOKALIKES.keys()].join('').replace(/[\\\]^-]/g, '\\$&')}]`, 'g');

/** One line made inert (no line breaks inside). */
function inertLine(line: string): string {
  let out = line
    // A tag opener: `<` before a letter, `/`, `!` or `?`. The entity keeps it readable and never a tag.
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
    // Brackets: no Markdown link or image (`![x](https://…)` would fetch a URL in a client that renders it), and no
    // text that imitates the `[by …, scope …]` provenance mem draws around it.
    .replace(/[[\]]/g, (b) => `\\${b}`)
    // Fences: three or more backticks or tildes anywhere are broken up with backslashes.
    .replace(/`{3,}|~{3,}/g, (run) => run.replace(/[`~]/g, (c) => `\\${c}`));
  // Line-start structure: a heading, a block quote, or a setext underline (`===` / `---` alone on the line).
  if (/^\s{0,3}(?:#|>|=+\s*$|-{2,}\s*$)/.test(out)) out = out.replace(/^(\s*)/, '$1\\');
  return out;
}

/** Make `text` inert for a model-facing block (see the module comment). */
export function inertText(text: string, options: InertOptions = {}): string {
  const clean = stripHidden(String(text))
    .replace(/\r\n?/g, '\n')
    .replace(CONTROLS, '')
    .replace(LOOKALIKE, (ch) => LOOKALIKES.get(ch) ?? ch)
    .replace(/\t/g, ' ');
  if (!options.multiline) return inertLine(clean.replace(/\s+/g, ' ').trim());
  return clean.split('\n').map(inertLine).join('\n');
}
