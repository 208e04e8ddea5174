/**
 * The Markdown transcript format (docs/conversations.md). Pure functions: render and parse round-trip exactly.
 *
 *   # Conversation Memory — <agent>
 *
 *   Conversation: <id>
 *   Created: <ISO time>
 *
 *   ---
 *
 *   ## Interaction Log
 *
 *   ### <role> — <ISO time>
 *
 *   <content>
 *
 *   ---
 *
 * A content line that would read as a block separator (`---`) or as a block heading
 * (`### user — 2026-…Z`), possibly behind backslashes, is written with one more leading backslash, which Markdown
 * shows as the literal line and the parser removes. Every other line is written as is.
 */
import { MemError } from '../errors.js';
import {
  TRANSCRIPT_ROLES,
  type Transcript,
  type TranscriptHeader,
  type TranscriptMessage,
  type TranscriptRole,
} from '../ports/transcript-store.js';
import { checkName } from './names.js';

export const INTERACTION_LOG_HEADING = '## Interaction Log';
export const SUMMARY_MARKER = '[Compressed Memory Summary]';
const BLOCK_SEPARATOR = '---';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BLOCK_HEADING = /^### (system|user|assistant|tool) — (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/;
/**
 * The older heading form, still read: a capitalised role and a time without milliseconds or zone
 * (`### User — 2026-04-20T18:33:15`). A time without a zone is read as UTC.
 */
const OLD_BLOCK_HEADING =
  /^### (System|User|Assistant|Tool|system|user|assistant|tool) — (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,3})?(Z)?$/;
const HEADING_TIME_SHAPE = '0000-00-00T00:00:00.000Z';

/** A block heading in the current or the older form: its role and its time as stored (ISO UTC, milliseconds). */
function readHeading(line: string): { role: TranscriptRole; at: string } | null {
  const m = BLOCK_HEADING.exec(line);
  if (m) return { role: m[1] as TranscriptRole, at: m[2]! };
  const old = OLD_BLOCK_HEADING.exec(line);
  if (!old) return null;
  const at = `${old[2]}${(old[3] ?? '.').padEnd(4, '0')}Z`;
  if (!isIsoUtc(at)) return null;
  return { role: old[1]!.toLowerCase() as TranscriptRole, at };
}

/**
 * True when `tail` (what follows the last complete block) is exactly what a crash in the middle of an append can
 * leave: a prefix of one block as mem writes it — a cut heading (`### assis`), or a whole heading followed by part
 * of a body that never got its `---` line. Anything else (a `## Notes` section a person typed, say) is not.
 */
export function isTornBlock(tail: string): boolean {
  const t = tail.replace(/^\n+/, '');
  if (t.length === 0) return true;
  const nl = t.indexOf('\n');
  if (nl >= 0) return BLOCK_HEADING.test(t.slice(0, nl)) && (nl === t.length - 1 || t[nl + 1] === '\n');
  for (const role of TRANSCRIPT_ROLES) {
    const lead = `### ${role} — `;
    if (t.length <= lead.length) {
      if (lead.startsWith(t)) return true;
      continue;
    }
    if (!t.startsWith(lead)) continue;
    const time = t.slice(lead.length);
    if (time.length > HEADING_TIME_SHAPE.length) return false;
    return [...time].every((c, k) =>
      HEADING_TIME_SHAPE[k] === '0' ? c >= '0' && c <= '9' : c === HEADING_TIME_SHAPE[k],
    );
  }
  return false;
}

/**
 * True when a file was saved with CRLF line endings (its first line ends with `\r\n`), as some editors on Windows do.
 * `parseTranscript` reads such a file; a store rewrites it with `\n` before appending to it.
 */
export function usesCrlf(text: string): boolean {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r';
}

/** True for content that is skipped instead of written (empty or only whitespace). */
export function isEmptyContent(content: string): boolean {
  return content.trim().length === 0;
}

/** A time as stored: ISO-8601 UTC with milliseconds. */
export function isIsoUtc(value: string): boolean {
  return ISO_UTC.test(value) && !Number.isNaN(Date.parse(value));
}

/** `[<time>] <role>: <content>` — how a message reads in a context and in `mem convo show`. */
export function renderMessageLine(message: TranscriptMessage): string {
  return `[${message.at}] ${message.role}: ${message.content}`;
}

/** Check a message before it is stored (adapters call this; `INVALID_INPUT`). */
export function checkTranscriptMessage(message: TranscriptMessage): void {
  if (!TRANSCRIPT_ROLES.includes(message.role as TranscriptRole)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid message role "${String(message.role)}": use one of ${TRANSCRIPT_ROLES.join(', ')}.`,
    );
  }
  if (typeof message.content !== 'string') throw new MemError('INVALID_INPUT', 'Message content must be a string.');
  if (message.content.includes('\u0000')) {
    throw new MemError(
      'INVALID_INPUT',
      'Message content must not contain NUL characters; remove them (the conversation service strips them for you).',
    );
  }
  if (typeof message.at !== 'string' || !isIsoUtc(message.at)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid message time "${String(message.at)}": use ISO-8601 UTC with milliseconds, e.g. 2026-03-01T12:00:00.000Z.`,
    );
  }
}

export function checkTranscriptHeader(header: TranscriptHeader): void {
  if (typeof header.conversationId !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(header.conversationId)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid conversation id "${String(header.conversationId)}": use 1–100 letters, digits, ".", "_" or "-".`,
    );
  }
  if (typeof header.createdAt !== 'string' || !isIsoUtc(header.createdAt)) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid creation time "${String(header.createdAt)}": use ISO-8601 UTC with milliseconds.`,
    );
  }
}

function needsEscape(line: string): boolean {
  const bare = line.replace(/^\\+/, '');
  return bare === BLOCK_SEPARATOR || readHeading(bare) !== null;
}

function escapeLine(line: string): string {
  return needsEscape(line) ? `\\${line}` : line;
}

function unescapeLine(line: string): string {
  return line.startsWith('\\') && needsEscape(line) ? line.slice(1) : line;
}

export function renderTranscriptHeader(agent: string, header: TranscriptHeader): string {
  return `# Conversation Memory — ${agent}\n\nConversation: ${header.conversationId}\nCreated: ${header.createdAt}\n\n${BLOCK_SEPARATOR}\n\n${INTERACTION_LOG_HEADING}\n\n`;
}

/** One message block; empty content renders as nothing (it is skipped). */
export function renderTranscriptBlock(message: TranscriptMessage): string {
  if (isEmptyContent(message.content)) return '';
  const body = message.content.split('\n').map(escapeLine).join('\n');
  return `### ${message.role} — ${message.at}\n\n${body}\n\n${BLOCK_SEPARATOR}\n\n`;
}

export function renderTranscript(agent: string, transcript: Transcript): string {
  return renderTranscriptHeader(agent, transcript.header) + transcript.messages.map(renderTranscriptBlock).join('');
}

/** True when a transcript file ends cleanly (after its header or after a complete block). */
export function endsCleanly(text: string): boolean {
  if (text.endsWith(`\n${BLOCK_SEPARATOR}\n\n`)) return true;
  // Right after the header, i.e. the first `## Interaction Log` line ends the text (a content line may read the same).
  const first = text.indexOf(`\n${INTERACTION_LOG_HEADING}\n`);
  return first >= 0 && first + INTERACTION_LOG_HEADING.length + 3 === text.length && text.endsWith('\n\n');
}

export interface ParsedTranscript extends Transcript {
  /**
   * Character offset just past the last complete block (or past the `## Interaction Log` line when there is
   * none); the text's length when it ends cleanly. What follows it is an incomplete block cut short by a crash
   * (never acknowledged, never part of `messages`) or stray text. For a file with CRLF line endings, the offset is
   * in the text with `\n` line endings.
   */
  completeLength: number;
}

/**
 * Parse a transcript file. Returns null for an empty text. `STORE_CORRUPT` when the header lacks
 * `## Interaction Log`. Lines outside blocks are ignored; an unterminated last block is dropped (it was never
 * acknowledged) and reported through `completeLength`. CRLF line endings and the older heading form
 * (`### User — 2026-04-20T18:33:15`, read as UTC) are read too.
 */
export function parseTranscript(input: string, where = 'transcript'): ParsedTranscript | null {
  if (input.length === 0) return null;
  const text = usesCrlf(input) ? input.replace(/\r\n/g, '\n') : input;
  const lines = text.split('\n');
  const logAt = lines.indexOf(INTERACTION_LOG_HEADING);
  if (logAt < 0) {
    throw new MemError(
      'STORE_CORRUPT',
      `${where}: no "${INTERACTION_LOG_HEADING}" line, so this is not a mem transcript. Move the file away (mem starts a new transcript) or restore its header.`,
    );
  }
  let conversationId = 'unknown';
  let createdAt = '1970-01-01T00:00:00.000Z';
  let pos = 0;
  for (let i = 0; i <= logAt; i++) {
    const line = lines[i]!;
    pos += line.length + 1;
    const m = i < logAt ? /^(?:- )?(Conversation|Created): (.+)$/.exec(line) : null;
    if (!m) continue;
    if (m[1] === 'Conversation') conversationId = m[2]!.trim();
    else createdAt = m[2]!.trim();
  }
  let completeLength = Math.min(pos, text.length);
  const messages: TranscriptMessage[] = [];
  let i = logAt + 1;
  while (i < lines.length) {
    const line = lines[i]!;
    const heading = readHeading(line);
    if (!heading) {
      pos += line.length + 1;
      i++;
      continue;
    }
    let j = i + 1;
    let end = pos + line.length + 1;
    while (j < lines.length && lines[j] !== BLOCK_SEPARATOR) {
      end += lines[j]!.length + 1;
      j++;
    }
    // A separator counts only once its line break is written: a cut inside a content line such as `----` or
    // `---\r` must not read as the end of a block.
    if (j >= lines.length - 1) break;
    let body = lines.slice(i + 1, j);
    if (body[0] === '') body = body.slice(1);
    if (body.length > 0 && body[body.length - 1] === '') body = body.slice(0, -1);
    messages.push({ role: heading.role, at: heading.at, content: body.map(unescapeLine).join('\n') });
    pos = end + BLOCK_SEPARATOR.length + 1;
    completeLength = Math.min(pos, text.length);
    i = j + 1;
  }
  if (endsCleanly(text)) completeLength = text.length;
  return { header: { conversationId, createdAt }, messages, completeLength };
}

/**
 * What to write before new blocks so that they start cleanly after `text` (with `\n` line endings): how many
 * characters to keep (a tail of the exact shape a crash leaves — see `isTornBlock` — is cut off; any other text is
 * kept) and a padding.
 */
export function appendRepair(text: string): { keep: number; pad: string } {
  if (text.length === 0 || endsCleanly(text)) return { keep: text.length, pad: '' };
  const parsed = parseTranscript(text);
  let keep = parsed ? parsed.completeLength : text.length;
  // Only the exact shape a crash leaves is cut off; text a person added (even one starting with `#`) stays.
  if (!isTornBlock(text.slice(keep))) keep = text.length;
  const kept = text.slice(0, keep);
  return { keep, pad: kept.endsWith('\n\n') ? '' : kept.endsWith('\n') ? '\n' : '\n\n' };
}

/** Validate the names a transcript is addressed by. */
export function checkTranscriptRef(space: string, agent: string): void {
  checkName(space, 'space');
  checkName(agent, 'agent');
}
