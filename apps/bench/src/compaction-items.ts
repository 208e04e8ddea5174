/**
 * What the compaction bench counts (apps/bench/README.md): the names, numbers and dates of archived turns, by a
 * definition of its own (not the summariser's), and the share of them a summary still holds.
 */
import type { TranscriptMessage } from '@mem/core';
import type { Turn } from './locomo.js';

const WORD = /[\p{L}\p{N}]+(?:['’.:/-][\p{L}\p{N}]+)*/gu;
const MONTHS = 'january february march april may june july august september october november december'.split(' ');
const DAYS = 'monday tuesday wednesday thursday friday saturday sunday yesterday today tomorrow tonight'.split(' ');
const NOT_NAMES = new Set("i i'm i've i'll i'd ok mr mrs ms dr".split(' '));

export type ItemKind = 'name' | 'number' | 'date';
export const ITEM_KINDS: readonly ItemKind[] = ['name', 'number', 'date'];

/** The words of a text, lower case, possessive `'s` dropped. */
export function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(WORD)) out.add(m[0].toLowerCase().replace(/['’]s$/, ''));
  return out;
}

/**
 * The items of one turn's text (its speaker label left out): a number is a word with a digit; a date a month ("May"
 * only capitalised), a weekday or yesterday/today/tomorrow/tonight; a name a capitalised word that does not start a
 * sentence. Keys are `kind:word`.
 */
export function turnItems(text: string): Set<string> {
  const out = new Set<string>();
  const said = text.replace(/^[^:\n]{1,40}:\s*/, '');
  let sentenceStart = true;
  let end = 0;
  for (const m of said.matchAll(WORD)) {
    const between = said.slice(end, m.index);
    if (/[.!?]/.test(between)) sentenceStart = true;
    end = m.index + m[0].length;
    const word = m[0];
    const lower = word.toLowerCase().replace(/['’]s$/, '');
    const capital = /^\p{Lu}/u.test(word);
    if (/\d/.test(word)) out.add(`number:${lower}`);
    else if ((MONTHS.includes(lower) && (capital || lower !== 'may')) || DAYS.includes(lower)) out.add(`date:${lower}`);
    else if (capital && !sentenceStart && !NOT_NAMES.has(lower) && lower.length > 1) out.add(`name:${lower}`);
    sentenceStart = false;
  }
  return out;
}

/** Per kind: how many items the turns hold and how many of them the summary holds. */
export function itemsKept(turns: readonly string[], summary: string): Record<ItemKind, { all: number; kept: number }> {
  const items = new Set<string>();
  for (const t of turns) for (const item of turnItems(t)) items.add(item);
  const words = wordsOf(summary);
  const out = { name: { all: 0, kept: 0 }, number: { all: 0, kept: 0 }, date: { all: 0, kept: 0 } };
  for (const item of items) {
    const [kind, word] = item.split(/:(.*)/s) as [ItemKind, string];
    out[kind].all++;
    if (words.has(word)) out[kind].kept++;
  }
  return out;
}

/**
 * Archive windows of a conversation: runs of consecutive turns of at least `tokens` tokens (counted by `count`),
 * at most `max` of them, spread evenly over the conversation.
 */
export function archiveWindows(
  turns: readonly Turn[],
  tokens: number,
  max: number,
  count: (text: string) => number,
): Turn[][] {
  const all: Turn[][] = [];
  let current: Turn[] = [];
  let size = 0;
  for (const t of turns) {
    current.push(t);
    size += count(t.content);
    if (size >= tokens) {
      all.push(current);
      current = [];
      size = 0;
    }
  }
  if (all.length <= max) return all;
  return Array.from({ length: max }, (_, i) => all[Math.floor((i * all.length) / max)]!);
}

/** A window as transcript messages: the first speaker is the `user`, anyone else the `assistant`. */
export function windowMessages(window: readonly Turn[]): TranscriptMessage[] {
  const first = window[0]?.content.split(':')[0];
  return window.map((t) => ({
    role: t.content.split(':')[0] === first ? 'user' : 'assistant',
    content: t.content,
    at: t.createdAt,
  }));
}
