/**
 * Why the agent believes a memory (docs/formation.md): its decision-log lines, the messages they cite, and the
 * supersede chain it belongs to, oldest first. Read-only; every memory of the chain is checked for visibility.
 */
import { MemError } from '../../errors.js';
import type { FormationEntry } from '../../ports/knowledge-store.js';
import { memoryRefInput, parseInput } from '../../schemas.js';
import type { MemoryClaim, MemoryRecord, Principal } from '../../types.js';
import type { KnowledgeContext } from './context.js';
import { refOf } from './records.js';

/** One memory of a supersede chain as `why` and `history` show it. */
export interface ChainLink {
  id: string;
  content: string;
  validFrom: string | null;
  validTo: string | null;
  recordedAt: string;
  invalidatedAt: string | null;
  supersedes: string | null;
  supersededBy: string | null;
  userId: string | null;
  claim: MemoryClaim | null;
  /** True when it holds now (not closed, not ended). */
  current: boolean;
}

export interface WhyReport {
  memory: ChainLink;
  /** The decision-log lines that led to it, oldest first: its own and those of the memories it superseded. */
  decisions: FormationEntry[];
  /** Every message id the lines cite, each once, in the order cited. */
  evidence: string[];
  /** The supersede chain it belongs to, oldest first (the memory itself included). */
  chain: ChainLink[];
}

export interface HistoryReport {
  /** Oldest first, each with the decisions that made or closed it. */
  chain: (ChainLink & { decisions: FormationEntry[] })[];
}

/** The longest chain walked (a chain is one value after another of one attribute). */
const MAX_CHAIN = 200;

function linkOf(r: MemoryRecord, now: string): ChainLink {
  return {
    id: r.docId,
    content: r.content,
    validFrom: r.validFrom,
    validTo: r.validTo,
    recordedAt: r.createdAt,
    invalidatedAt: r.invalidatedAt,
    supersedes: r.supersedes,
    supersededBy: r.supersededBy,
    userId: r.userId,
    claim: r.claim,
    current: r.invalidatedAt === null && (r.validTo === null || r.validTo > now),
  };
}

/** A chain member `p` may see, or null (gone, or not for this principal). */
async function visible(ctx: KnowledgeContext, p: Principal, id: string): Promise<MemoryRecord | null> {
  try {
    return (await ctx.resolve(p, { id }))[0] ?? null;
  } catch (error) {
    if (MemError.is(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** The chain of a memory, oldest first: back along `supersedes`, forward along `supersededBy`. */
async function chainOf(ctx: KnowledgeContext, p: Principal, first: MemoryRecord): Promise<MemoryRecord[]> {
  const back: MemoryRecord[] = [];
  const seen = new Set([first.docId]);
  for (let at = first; at.supersedes !== null && back.length < MAX_CHAIN; ) {
    const prev = seen.has(at.supersedes) ? null : await visible(ctx, p, at.supersedes);
    if (!prev) break;
    seen.add(prev.docId);
    back.unshift(prev);
    at = prev;
  }
  const forward: MemoryRecord[] = [];
  for (let at = first; at.supersededBy !== null && forward.length < MAX_CHAIN; ) {
    const next = seen.has(at.supersededBy) ? null : await visible(ctx, p, at.supersededBy);
    if (!next) break;
    seen.add(next.docId);
    forward.push(next);
    at = next;
  }
  return [...back, first, ...forward];
}

/** `mem why <id>`: the decisions behind a memory, their evidence and its chain. */
export async function why(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<WhyReport> {
  ctx.checkPrincipal(p);
  const [first] = await ctx.resolve(p, refOf(parseInput(memoryRefInput, 'why', raw), 'why'));
  const now = ctx.now().toISOString();
  const chain = await chainOf(ctx, p, first!);
  const upTo = chain.slice(0, chain.findIndex((r) => r.docId === first!.docId) + 1);
  const decisions = await ctx.knowledge.formationLog(
    p.space,
    upTo.map((r) => r.docId),
  );
  return {
    memory: linkOf(first!, now),
    decisions,
    evidence: [...new Set(decisions.flatMap((d) => d.evidence))],
    chain: chain.map((r) => linkOf(r, now)),
  };
}

/** `mem history <id>`: the supersede chain of a memory, oldest first, each with its decisions. */
export async function history(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<HistoryReport> {
  ctx.checkPrincipal(p);
  const [first] = await ctx.resolve(p, refOf(parseInput(memoryRefInput, 'history', raw), 'history'));
  const now = ctx.now().toISOString();
  const chain = await chainOf(ctx, p, first!);
  const lines = await ctx.knowledge.formationLog(
    p.space,
    chain.map((r) => r.docId),
  );
  return {
    chain: chain.map((r) => ({ ...linkOf(r, now), decisions: lines.filter((l) => l.memoryId === r.docId) })),
  };
}
