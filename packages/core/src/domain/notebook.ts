/** Notebook rules (docs/notebooks.md): file paths, the edit rules of write_memory, versions. Pure functions. */
import { MemError } from '../errors.js';
import type { NotebookScope } from '../ports/notebook-store.js';
import { contentHash } from './ids.js';
import { checkName } from './names.js';

export const MAIN_NOTEBOOK_FILE = 'MEMORY.md';
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;
/** Folders allowed above a file. */
export const MAX_NOTEBOOK_FOLDERS = 2;

const pathExample = 'e.g. "MEMORY.md", "people.md" or "plans/q3-roadmap.md"';

function badPath(file: string, problem: string): MemError {
  return new MemError(
    'INVALID_INPUT',
    `Invalid notebook file "${String(file).slice(0, 200)}": ${problem}. Use up to ${MAX_NOTEBOOK_FOLDERS} folders and a file name, each part starting with a letter or digit followed by letters, digits, ".", "_" or "-" (at most 80 characters), ${pathExample}.`,
    { details: { rule: 'notebook-path' } },
  );
}

function problemOf(file: string): string | null {
  if (typeof file !== 'string' || file.length === 0) return 'it is empty';
  if (file.includes('\u0000')) return 'it contains a NUL character';
  if (file.includes('\\')) return 'it contains a backslash (use "/" between folders)';
  if (file.startsWith('/')) return 'it is an absolute path (give a path inside the notebook)';
  if (file.includes('..')) return 'it contains ".."';
  const segments = file.split('/');
  if (segments.some((s) => s.length === 0)) return 'it has an empty part ("//" or a trailing "/")';
  if (segments.length > MAX_NOTEBOOK_FOLDERS + 1)
    return `it is ${segments.length - 1} folders deep (at most ${MAX_NOTEBOOK_FOLDERS})`;
  for (const s of segments) {
    if (s.length > 80) return `the part "${s.slice(0, 40)}…" is ${s.length} characters long (at most 80)`;
    if (!SEGMENT.test(s))
      return `the part "${s}" must start with a letter or digit and hold only letters, digits, ".", "_" or "-"`;
  }
  return null;
}

/** Normalise a file given by an agent: check every part and add `.md` when missing. `INVALID_INPUT`. */
export function normalizeNotebookPath(file: string): string {
  const problem = problemOf(file);
  if (problem) throw badPath(file, problem);
  const withExt = /\.md$/i.test(file) ? file : `${file}.md`;
  const again = problemOf(withExt);
  if (again) throw badPath(file, `${again} once ".md" is added`);
  return withExt;
}

/** Check an already-normalised path (stores call this before touching anything). `INVALID_INPUT`. */
export function checkNotebookPath(path: string): string {
  const problem = problemOf(path) ?? (/\.md$/i.test(path) ? null : 'it does not end in ".md"');
  if (problem) throw badPath(path, problem);
  return path;
}

export function checkNotebookScope(scope: NotebookScope): NotebookScope {
  checkName(scope.space, 'space');
  checkName(scope.agent, 'agent');
  if (scope.user !== undefined) checkName(scope.user, 'user');
  if (scope.topic !== undefined) checkName(scope.topic, 'topic');
  return scope;
}

/** The compare-and-set version of a file: the first 16 hex digits of its SHA-256. */
export function notebookVersion(content: string): string {
  return contentHash(content).slice(0, 16);
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Every start index of `needle` in `haystack`, overlapping occurrences included. */
export function findOccurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  let at = haystack.indexOf(needle);
  while (at >= 0) {
    out.push(at);
    at = haystack.indexOf(needle, at + 1);
  }
  return out;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

export type NotebookWriteStatus = 'created' | 'appended' | 'updated';

/**
 * Apply one write_memory edit to a file's current content (null when the file does not exist):
 * - no `oldText`: append `content` as new line(s) (empty content is an error);
 * - `oldText`: it must occur exactly once and is replaced by `content`; empty `content` removes the passage
 *   (and the line break after it when it spans whole lines).
 * Errors (`INVALID_INPUT`, `NOT_FOUND`) say what was wrong and how to fix it.
 */
export function applyNotebookEdit(
  current: string | null,
  edit: { content: string; oldText?: string | undefined },
  file: string,
): { content: string; status: NotebookWriteStatus } {
  const { content, oldText } = edit;
  if (oldText === undefined) {
    if (content.trim().length === 0) {
      throw new MemError(
        'INVALID_INPUT',
        `Nothing to write to ${file}: content is empty. Give the text to add, or give oldText with empty content to remove a passage.`,
      );
    }
    const line = content.endsWith('\n') ? content : `${content}\n`;
    if (current === null) return { content: line, status: 'created' };
    const sep = current.length === 0 || current.endsWith('\n') ? '' : '\n';
    return { content: current + sep + line, status: 'appended' };
  }
  if (oldText.length === 0) {
    throw new MemError(
      'INVALID_INPUT',
      `oldText is empty: give the exact passage of ${file} to replace, or leave oldText out to append.`,
    );
  }
  if (current === null) {
    throw new MemError(
      'NOT_FOUND',
      `${file} does not exist, so oldText cannot match anything. Write without oldText to create it, or use list_memory to see the files.`,
    );
  }
  const hits = findOccurrences(current, oldText);
  if (hits.length === 0) {
    const near = squash(current).includes(squash(oldText));
    throw new MemError(
      'INVALID_INPUT',
      `oldText was not found in ${file} (0 matches), so nothing was changed. ${
        near
          ? 'A passage that differs only in spaces, line breaks or letter case exists: copy it exactly as read_memory shows it.'
          : 'Read the file with read_memory and copy the passage exactly, including spaces, line breaks and letter case; or leave oldText out to append.'
      }`,
      { details: { matches: 0, file } },
    );
  }
  if (hits.length > 1) {
    const lines = [...new Set(hits.map((h) => lineOf(current, h)))];
    throw new MemError(
      'INVALID_INPUT',
      `oldText occurs ${hits.length} times in ${file} (at line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 10).join(', ')}), but it must occur exactly once, so nothing was changed. Add surrounding words (for example the whole line) to oldText so that it matches one place only.`,
      { details: { matches: hits.length, file, lines } },
    );
  }
  const at = hits[0]!;
  let end = at + oldText.length;
  if (content.length === 0) {
    const startsLine = at === 0 || current[at - 1] === '\n';
    if (startsLine && !oldText.endsWith('\n') && current[end] === '\n') end++;
  }
  return { content: current.slice(0, at) + content + current.slice(end), status: 'updated' };
}
