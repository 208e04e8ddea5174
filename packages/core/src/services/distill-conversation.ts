/**
 * `distill` over an agent's transcript (docs/formation.md): the messages since its last distillation for the user it
 * acts for (a cursor kept in the session-state store), or from `since`, or the messages given. Each transcript
 * message gets an id from who said what when, so the decision log can cite it and distilling again cites the same.
 */

import { distillCursorSessionId } from '../domain/agent-sessions.js';
import { itemText } from '../domain/item-text.js';
import type { DistillMessage } from '../ports/statement-extractor.js';
import { parseInput } from '../schemas.js';
import { distillInput } from '../schemas-formation.js';
import { missingPort, type Stack } from '../stack.js';
import type { Principal } from '../types.js';
import type { JsonObject } from '../types-structured.js';
import { enqueueReview } from './distill-review.js';
import { withGraph as linked } from './graph/from-formation.js';
import { type DistillReport, distillMessageId } from './knowledge/formation.js';

/** Where a distillation of a transcript stopped: the time of the last message read and the ids read at that time. */
export interface DistillCursor {
  at: string;
  ids: string[];
}

export interface ConversationDistillReport extends DistillReport {
  /** Where the next distillation of the transcript starts (null for given messages). */
  cursor: DistillCursor | null;
  /** Review mode: the ids of the proposals put in the review queue (`mem distill review`). */
  queued?: string[];
}

/** A review-mode report: its proposals go into the queue (which fails, queuing none, when full). */
async function queued<T extends DistillReport>(
  stack: Stack,
  p: Principal,
  report: T,
): Promise<T & { queued?: string[] }> {
  if (!report.pending) return report;
  return { ...report, queued: await enqueueReview(stack, p, report.pending) };
}

const userKey = (p: Principal) => p.userId ?? '';

/** Cursors of stacks without a session-state store: kept for the life of the stack object (one process). */
const heldCursors = new WeakMap<Stack, Map<string, DistillCursor>>();
const heldKey = (p: Principal) => `${p.space}\u0000${p.agentId}\u0000${userKey(p)}`;

async function readCursor(stack: Stack, p: Principal): Promise<DistillCursor | null> {
  if (!stack.structured.sessionState) return heldCursors.get(stack)?.get(heldKey(p)) ?? null;
  const row = await stack.structured.sessionState.get(p.space, distillCursorSessionId(p.agentId));
  const value = (row?.state as Record<string, unknown> | undefined)?.[userKey(p)];
  if (!value || typeof value !== 'object') return null;
  const { at, ids } = value as { at?: unknown; ids?: unknown };
  if (typeof at !== 'string' || !Array.isArray(ids)) return null;
  return { at, ids: ids.filter((x): x is string => typeof x === 'string') };
}

async function saveCursor(stack: Stack, p: Principal, cursor: DistillCursor): Promise<void> {
  const store = stack.structured.sessionState;
  if (!store) {
    const held = heldCursors.get(stack) ?? new Map<string, DistillCursor>();
    heldCursors.set(stack, held);
    held.set(heldKey(p), { at: cursor.at, ids: [...cursor.ids] });
    return;
  }
  const id = distillCursorSessionId(p.agentId);
  const row = await store.get(p.space, id);
  const state: JsonObject = {
    ...((row?.state as JsonObject | undefined) ?? {}),
    [userKey(p)]: { at: cursor.at, ids: [...cursor.ids] },
  };
  await store.set(p.space, id, state, stack.clock.now().toISOString());
}

/** The transcript's messages after `cursor` (all of them without one), each with its id. */
function after(messages: readonly DistillMessage[], cursor: DistillCursor | null): DistillMessage[] {
  if (!cursor) return [...messages];
  const seen = new Set(cursor.ids);
  return messages.filter((m) => m.at > cursor.at || (m.at === cursor.at && !seen.has(m.id)));
}

/** The cursor after reading `read` (the latest time among them, with every id read at it). */
function advanced(cursor: DistillCursor | null, read: readonly DistillMessage[]): DistillCursor | null {
  let next = cursor ? { at: cursor.at, ids: [...cursor.ids] } : null;
  for (const m of read) {
    if (!next || m.at > next.at) next = { at: m.at, ids: [m.id] };
    else if (m.at === next.at && !next.ids.includes(m.id)) next.ids.push(m.id);
  }
  return next;
}

/**
 * distill for `p`: the given messages, or the agent's transcript since its last distillation (from `since` when
 * given). A dry run moves no cursor. CAPABILITY_MISSING without messages on a stack without a transcript store.
 */
export async function distillConversation(
  stack: Stack,
  p: Principal,
  raw: unknown,
): Promise<ConversationDistillReport> {
  const input = parseInput(distillInput, 'distill', raw);
  if (input.messages !== undefined)
    return {
      ...(await queued(stack, p, await linked(stack, p, await stack.knowledge.distill(p, input)))),
      cursor: null,
    };
  const conversations = stack.conversations;
  if (!conversations) throw missingPort('transcripts', 'distill without messages needs a transcript: this stack');
  const transcript = await conversations.store.read(p.space, p.agentId);
  // A framework's JSON items (an Agents SDK session) are read as their words; the id is the stored message's.
  const all: DistillMessage[] = (transcript?.messages ?? []).map((m) => ({
    ...m,
    content: itemText(m.content),
    id: distillMessageId(p.agentId, m),
  }));
  const stored = await readCursor(stack, p);
  const from = input.since !== undefined ? { at: input.since, ids: [] } : stored;
  const pending = input.since !== undefined ? all.filter((m) => m.at >= input.since!) : after(all, from);
  const report = await queued(
    stack,
    p,
    await linked(stack, p, await stack.knowledge.distill(p, input, { messages: pending })),
  );
  if ((report.dryRun && !report.pending) || pending.length === 0) return { ...report, cursor: stored };
  const next = advanced(stored, pending);
  if (next) await saveCursor(stack, p, next);
  return { ...report, cursor: next };
}
