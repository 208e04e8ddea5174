/**
 * The formation bench's dialogue set (issue 33): multi-session conversations with their expected end state, in two
 * halves written in different styles — `chat` (short phone-typed turns: lower case, typos, slang) and `prose` (long
 * turns in full sentences, several facts and asides at once). The shape is in src/formation-data.ts.
 */

import type { Dialogue } from './formation-data.js';
import { FORMATION_CHAT_1 } from './formation-dialogues-chat-1.js';
import { FORMATION_CHAT_2 } from './formation-dialogues-chat-2.js';
import { FORMATION_CHAT_3 } from './formation-dialogues-chat-3.js';
import { FORMATION_PROSE_1 } from './formation-dialogues-prose-1.js';
import { FORMATION_PROSE_2 } from './formation-dialogues-prose-2.js';
import { FORMATION_PROSE_3 } from './formation-dialogues-prose-3.js';

export const DIALOGUES: readonly Dialogue[] = [
  ...FORMATION_CHAT_1,
  ...FORMATION_CHAT_2,
  ...FORMATION_CHAT_3,
  ...FORMATION_PROSE_1,
  ...FORMATION_PROSE_2,
  ...FORMATION_PROSE_3,
];

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The mistakes a hand-written set can make, one line each (empty: the set is sound). */
export function checkDialogues(set: readonly Dialogue[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const pattern = (where: string, p: string) => {
    try {
      new RegExp(p, 'i');
    } catch {
      problems.push(`${where}: "${p}" is not a regular expression`);
    }
  };
  for (const d of set) {
    const at = (s: string) => problems.push(`${d.id}: ${s}`);
    if (ids.has(d.id)) at('the id is used twice');
    ids.add(d.id);
    if (d.sessions.length === 0) at('no session');
    let last = '';
    for (const s of d.sessions) {
      if (!ISO_TIME.test(s.at) || Number.isNaN(Date.parse(s.at))) at(`session time "${s.at}" is not an ISO time`);
      if (s.at <= last) at(`session ${s.at} is not after the one before`);
      last = s.at;
      if (s.turns.length === 0) at(`session ${s.at} has no turn`);
    }
    for (const p of d.probes) {
      if (!p.expect?.length && !p.stale?.length) at(`probe "${p.query}" expects nothing and names no stale value`);
      for (const x of [...(p.expect ?? []), ...(p.stale ?? [])]) pattern(d.id, x);
    }
    for (const q of d.asOf ?? []) {
      if (!ISO_DATE.test(q.asOf)) at(`as-of "${q.asOf}" is not an ISO date`);
      if (!q.expect?.length && !q.not?.length) at(`as-of probe "${q.query}" checks nothing`);
      for (const x of [...(q.expect ?? []), ...(q.not ?? [])]) pattern(d.id, x);
    }
    for (const f of d.forbidden ?? []) pattern(d.id, f.pattern);
  }
  return problems;
}
