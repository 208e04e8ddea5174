/**
 * Review mode of distill (docs/formation.md): instead of being applied, the proposals that would change something
 * wait in a queue per agent (a row of the session-state store), to be listed, approved — decided again against what
 * is current then, and written as a distillation writes — or rejected. A proposal about an end user is seen only by
 * a principal acting for that user, as the memory it would make.
 *
 * The store has no compare-and-set, so every change of a queue is written, read back and written again until it
 * holds (a change of another process in between is kept, not overwritten).
 */

import { distillReviewSessionId } from '../domain/agent-sessions.js';
import { newId } from '../domain/ids.js';
import { checkName } from '../domain/names.js';
import { MemError } from '../errors.js';
import type { SessionStateStore } from '../ports/session-state-store.js';
import { missingPort, type Stack } from '../stack.js';
import type { Principal } from '../types.js';
import type { JsonObject } from '../types-structured.js';
import { withGraph } from './graph/from-formation.js';
import type { DistillReport, PendingProposal } from './knowledge/formation.js';

/** Proposals one agent's queue holds at most: a distillation that would pass it fails (nothing is dropped). */
export const MAX_REVIEW_ITEMS = 500;
/** Rounds of write and read back before a queue change gives up with STORE_UNAVAILABLE. */
const MAX_ROUNDS = 8;

/** A proposal waiting in the review queue. */
export interface ReviewItem extends PendingProposal {
  id: string;
  queuedAt: string;
  /** The agent whose conversation it came from, and the end user it is about (null: none). */
  agentId: string;
  userId: string | null;
}

export interface ReviewDecision {
  /** The proposals approved (or rejected), in the order given. */
  ids: string[];
  /** Approve: what applying them did, one report per owner (agent and user) and extractor. */
  reports: DistillReport[];
}

function store(stack: Stack, what: string): SessionStateStore {
  const s = stack.structured.sessionState;
  if (!s) throw missingPort('sessionState', `${what} keeps its queue in a session-state store: this stack`);
  return s;
}

function mayUse(p: Principal, agentId: string): void {
  checkName(agentId, 'agent');
  if (p.role !== 'lead' && p.agentId !== agentId)
    throw new MemError(
      'FORBIDDEN',
      `Only agent "${agentId}" or a lead may review its proposals (you are "${p.agentId}", a ${p.role}).`,
    );
}

/** What `p` may see of a queue: proposals about no user, or about the user it acts for. */
const visible = (p: Principal) => (item: ReviewItem) => item.userId === null || item.userId === (p.userId ?? null);

async function read(s: SessionStateStore, space: string, agentId: string): Promise<Record<string, ReviewItem>> {
  const row = await s.get(space, distillReviewSessionId(agentId));
  const state = row?.state;
  if (!state || typeof state !== 'object' || Array.isArray(state)) return {};
  return state as unknown as Record<string, ReviewItem>;
}

/**
 * Change a queue: `change` returns the ids it adds (with their items) and removes; written until a read back shows
 * the change, so that a concurrent change of another process survives.
 */
async function mutate(
  s: SessionStateStore,
  space: string,
  agentId: string,
  at: string,
  change: (items: Record<string, ReviewItem>) => { add?: ReviewItem[]; remove?: string[] },
): Promise<void> {
  const id = distillReviewSessionId(agentId);
  let wanted: { add: ReviewItem[]; remove: string[] } | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const items = await read(s, space, agentId);
    if (!wanted) {
      const c = change(items);
      wanted = { add: c.add ?? [], remove: c.remove ?? [] };
      if (wanted.add.length === 0 && wanted.remove.length === 0) return;
    }
    const holds = wanted.add.every((x) => x.id in items) && wanted.remove.every((x) => !(x in items));
    if (holds && round > 0) return;
    for (const x of wanted.add) items[x.id] = x;
    for (const x of wanted.remove) delete items[x];
    if (Object.keys(items).length === 0) await s.delete(space, id);
    else await s.set(space, id, items as unknown as JsonObject, at);
  }
  throw new MemError(
    'STORE_UNAVAILABLE',
    `The review queue of agent "${agentId}" kept changing while it was written; try again.`,
    { retryable: true },
  );
}

/** Keep a review-mode distillation's proposals for `p`'s agent. Fails (adding none) when the queue would overflow. */
export async function enqueueReview(
  stack: Stack,
  p: Principal,
  pending: readonly PendingProposal[],
): Promise<string[]> {
  if (pending.length === 0) return [];
  const s = store(stack, 'distill with review');
  const now = stack.clock.now();
  // As JSON (fields left undefined dropped): what the session-state store keeps.
  const items: ReviewItem[] = pending.map((x) =>
    JSON.parse(
      JSON.stringify({
        ...x,
        id: `prop_${newId(now).toLowerCase()}`,
        queuedAt: now.toISOString(),
        agentId: p.agentId,
        userId: p.userId ?? null,
      }),
    ),
  );
  await mutate(s, p.space, p.agentId, now.toISOString(), (held) => {
    const total = Object.keys(held).length + items.length;
    if (total > MAX_REVIEW_ITEMS)
      throw new MemError(
        'TOO_LARGE',
        `The review queue of agent "${p.agentId}" would hold ${total} proposals, over ${MAX_REVIEW_ITEMS}: approve or reject some (mem distill review) and distil again; nothing was queued and the messages stay to be read.`,
      );
    return { add: items };
  });
  return items.map((x) => x.id);
}

/** The proposals waiting for `agentId` (default: `p`'s own) that `p` may see, oldest first. */
export async function listReview(stack: Stack, p: Principal, agentId = p.agentId): Promise<ReviewItem[]> {
  mayUse(p, agentId);
  const items = Object.values(await read(store(stack, 'review'), p.space, agentId));
  return items.filter(visible(p)).sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.id.localeCompare(b.id));
}

/** The items `ids` names, all of them visible to `p`, or NOT_FOUND naming the first that is not. */
async function pick(stack: Stack, p: Principal, agentId: string, ids: readonly string[]): Promise<ReviewItem[]> {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100 || ids.some((x) => typeof x !== 'string'))
    throw new MemError('INVALID_INPUT', 'Give 1 to 100 proposal ids (prop_…), as mem distill review lists them.');
  const held = await listReview(stack, p, agentId);
  const byId = new Map(held.map((x) => [x.id, x]));
  const missing = ids.find((x) => !byId.has(x));
  if (missing !== undefined)
    throw new MemError(
      'NOT_FOUND',
      `No proposal "${missing}" waits for agent "${agentId}" (already approved or rejected?): nothing was changed.`,
    );
  return [...new Set(ids)].map((x) => byId.get(x)!);
}

/**
 * Approve proposals: apply them (each decided again against what is current now) for the agent and user they came
 * from, then take them from the queue. A proposal refused now (a secret, a bad date) is reported in `failures`.
 */
export function approveReview(stack: Stack, p: Principal, ids: readonly string[], agentId = p.agentId) {
  return decide(stack, p, ids, agentId, true);
}

/** Reject proposals: take them from the queue; nothing is formed. */
export function rejectReview(stack: Stack, p: Principal, ids: readonly string[], agentId = p.agentId) {
  return decide(stack, p, ids, agentId, false);
}

async function decide(
  stack: Stack,
  p: Principal,
  ids: readonly string[],
  agentId: string,
  apply: boolean,
): Promise<ReviewDecision> {
  const items = await pick(stack, p, agentId, ids);
  const reports: DistillReport[] = [];
  if (apply) {
    const groups = new Map<string, ReviewItem[]>();
    for (const item of items) {
      const key = JSON.stringify([item.userId, item.extractor.id, item.extractor.model, item.extractor.promptVersion]);
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    for (const group of groups.values()) {
      const userId = group[0]!.userId;
      const owner: Principal = { space: p.space, agentId, role: p.role, ...(userId !== null ? { userId } : {}) };
      reports.push(await withGraph(stack, owner, await stack.knowledge.formPending(owner, group)));
    }
  }
  const done = items.map((x) => x.id);
  await mutate(store(stack, 'review'), p.space, agentId, stack.clock.now().toISOString(), () => ({ remove: done }));
  return { ids: done, reports };
}

/**
 * Drop queued proposals `drop` selects from an agent's queue (forget: a user's, or those resting only on forgotten
 * messages). Returns how many went.
 */
export async function dropFromReview(
  stack: Stack,
  space: string,
  agentId: string,
  drop: (item: ReviewItem) => boolean,
): Promise<number> {
  const s = stack.structured.sessionState;
  if (!s) return 0;
  let n = 0;
  await mutate(s, space, agentId, stack.clock.now().toISOString(), (items) => {
    const remove = Object.values(items)
      .filter(drop)
      .map((x) => x.id);
    n = remove.length;
    return { remove };
  });
  return n;
}
