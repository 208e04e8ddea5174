/** The pieces a conversation puts around its history when it assembles a context, and the cleaning of every text. */
import { stripHidden } from '../../domain/hidden-text.js';
import { PERSONAL_DATA_RULES, personalDataPolicy, redactSecrets } from '../../domain/secrets.js';
import { isEmptyContent } from '../../domain/transcript-format.js';
import type { TurnMessage } from '../../ports/transcript-store.js';
import type { ContextInput, ConversationOptions } from './options.js';

/** A message with its token count (text plus the per-message overhead). */
export interface Framed {
  message: TurnMessage;
  tokens: number;
}

/**
 * What goes before the history (the system prompt and rules given as `fixed`, then the notebook block) and after it
 * (the recall block, then the current turn); empty texts are left out. `count` gives a text's tokens with overhead.
 */
export function framing(
  input: ContextInput,
  fixed: readonly Framed[],
  count: (text: string) => number,
): { before: Framed[]; after: Framed[] } {
  const before: Framed[] = [...fixed];
  const after: Framed[] = [];
  if (input.notebook && !isEmptyContent(input.notebook)) {
    before.push({ message: { role: 'system', content: input.notebook }, tokens: count(input.notebook) });
  }
  if (input.recall && !isEmptyContent(input.recall)) {
    after.push({ message: { role: 'system', content: input.recall }, tokens: count(input.recall) });
  }
  if (input.turn !== undefined) {
    const turn = typeof input.turn === 'string' ? { role: 'user' as const, content: input.turn } : input.turn;
    if (!isEmptyContent(turn.content)) after.push({ message: { ...turn }, tokens: count(turn.content) });
  }
  return { before, after };
}

/**
 * A transcript text as it may be stored: NUL and hidden characters removed, secrets redacted (unless `redactSecrets` is off), and
 * personal data redacted unless the space's policy allows it (a turn is never refused).
 */
export function cleanTranscriptText(
  text: string,
  options: Pick<ConversationOptions, 'redactSecrets' | 'personalData'>,
  space: string,
): string {
  // NUL characters and characters that render as nothing (hidden text a model would read) are not kept.
  const noNul = stripHidden(text.includes('\u0000') ? text.replace(/\u0000/g, '') : text);
  const noSecrets = options.redactSecrets ? redactSecrets(noNul) : noNul;
  return personalDataPolicy(options.personalData, space) === 'allow'
    ? noSecrets
    : redactSecrets(noSecrets, PERSONAL_DATA_RULES);
}
