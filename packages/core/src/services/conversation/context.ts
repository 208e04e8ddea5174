/** The pieces a conversation puts around its history when it assembles a context, and the cleaning of every text. */
import { stripHidden } from '../../domain/hidden-text.js';
import { PERSONAL_DATA_RULES, personalDataPolicy, redactSecrets } from '../../domain/secrets.js';
import type { RunningTokens } from '../../domain/token-budget.js';
import { isEmptyContent } from '../../domain/transcript-format.js';
import { MemError } from '../../errors.js';
import type { TurnMessage } from '../../ports/transcript-store.js';
import type { ContextInput, ConversationOptions, LeftOut } from './options.js';

/** A message with its token count (text plus the per-message overhead). */
export interface Framed {
  message: TurnMessage;
  tokens: number;
}

/** The parts of a prompt around its history: each may be absent (an empty text is left out). */
export interface PromptParts {
  /** The system prompt and rules (never left out). */
  fixed: readonly Framed[];
  /** The notebook block, placed with the persistent memory. */
  notebook: Framed | null;
  /** The recall block, after the history. */
  recall: Framed | null;
  /** The current turn, last (never left out). */
  turn: Framed | null;
  /** Tokens of the tool definitions, as JSON text. */
  toolTokens: number;
}

/** The parts of `input` around the history, counted with `count` (a text's tokens with the per-message overhead). */
export function promptParts(
  input: ContextInput,
  fixed: readonly Framed[],
  count: (text: string) => number,
): PromptParts {
  const framed = (text: string): Framed => ({ message: { role: 'system', content: text }, tokens: count(text) });
  let turn: Framed | null = null;
  if (input.turn !== undefined) {
    const t = typeof input.turn === 'string' ? { role: 'user' as const, content: input.turn } : input.turn;
    if (!isEmptyContent(t.content)) turn = { message: { ...t }, tokens: count(t.content) };
  }
  let tools: string | undefined;
  if (input.tools !== undefined) {
    if (!Array.isArray(input.tools)) {
      throw new MemError(
        'INVALID_INPUT',
        'tools must be an array of tool definitions (JSON), e.g. [{ "name": "search", … }].',
      );
    }
    try {
      tools = input.tools.length > 0 ? JSON.stringify(input.tools) : undefined;
    } catch {
      throw new MemError(
        'INVALID_INPUT',
        'tools must be plain JSON (no cycles, no BigInt): give the definitions the model call sends.',
      );
    }
  }
  return {
    fixed,
    notebook: input.notebook && !isEmptyContent(input.notebook) ? framed(input.notebook) : null,
    recall: input.recall && !isEmptyContent(input.recall) ? framed(input.recall) : null,
    turn,
    toolTokens: tools === undefined ? 0 : count(tools),
  };
}

/** Tokens of the parts outside the fixed ones (notebook, recall, turn, tools): what the history shares the window with. */
export function extraTokens(parts: PromptParts): number {
  return (parts.notebook?.tokens ?? 0) + (parts.recall?.tokens ?? 0) + (parts.turn?.tokens ?? 0) + parts.toolTokens;
}

/** What fits: the first history entry kept, and the notebook and recall blocks that stay (null: left out). */
export interface HistoryFit {
  first: number;
  notebook: Framed | null;
  recall: Framed | null;
  overBudget: boolean;
}

/**
 * Choose what of the history fits in `room` tokens (the budget less what is never left out: system prompt, rules,
 * title, current turn), with the entries' running totals `counts`. The summary entry (`head` = 1 when entry 0 is
 * one, of `headTokens`) and the entries from `newest` (the newest turn) are always kept; older entries go first,
 * then the recall block, then the notebook block. O(log n) per step.
 */
export function fitHistory(
  counts: RunningTokens,
  parts: Pick<PromptParts, 'notebook' | 'recall'>,
  at: { room: number; head: number; headTokens: number; newest: number },
): HistoryFit {
  let { notebook, recall } = parts;
  const { head, headTokens, newest } = at;
  const history = (k: number) => (head && k > 0 ? headTokens : 0) + counts.from(k);
  const room = () => at.room - (notebook?.tokens ?? 0) - (recall?.tokens ?? 0);
  const first = () => Math.min(newest, Math.max(head, counts.fitFrom(room() - headTokens)));
  let k = first();
  if (history(k) > room() && recall) {
    recall = null;
    k = first();
  }
  if (history(k) > room() && notebook) {
    notebook = null;
    k = first();
  }
  return { first: k, notebook, recall, overBudget: history(k) > room() };
}

/** The warning logged when a prompt left something out (null when nothing was). */
export function leftOutWarning(leftOut: LeftOut, overBudget: boolean, tokens: number, budget: number): string | null {
  const what = [
    leftOut.messages > 0 ? `${leftOut.messages} older message(s)` : '',
    leftOut.recall ? 'the recall block' : '',
    leftOut.notebook ? 'the notebook block' : '',
  ].filter(Boolean);
  if (overBudget) {
    const also = what.length > 0 ? `; left out ${what.join(', ')}` : '';
    return `the prompt is over budget (${tokens} tokens for ${budget}) with only the system prompt, rules, summary and newest turn${also}: raise contextLength or shorten the system prompt`;
  }
  return what.length > 0
    ? `the prompt did not fit the context window (${budget} tokens); left out ${what.join(', ')}`
    : null;
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
