/**
 * `gc` (docs/lifecycles.md): delete expired memories and prune transcript archives by a retention policy (max age / max
 * count per agent). Archives are kept forever unless a policy is given here or in the stack's `conversation.retention`.
 */
import { parseInput } from '../schemas.js';
import { type GcInput, gcInput } from '../schemas-forget.js';
import type { Stack } from '../stack.js';
import type { Principal } from '../types.js';

export interface GcOptions extends GcInput {
  /** Expired memories of every space (the CLI's `--all-spaces`); archives are pruned in the principal's space only. */
  allSpaces?: boolean | undefined;
}

export interface GcReport {
  /** Expired memory chunks deleted. */
  deletedChunks: number;
  archives: {
    /** The policy applied (nulls: no limit). */
    policy: { maxAgeDays: number | null; maxCount: number | null };
    /** Agents whose archives were looked at (a lead: every agent of the space with a transcript; a worker: itself). */
    agents: number;
    /** Archives deleted. */
    deleted: number;
    /** Why archives were not pruned, when they were not (no transcript store, or no policy). */
    skipped?: string | undefined;
  };
}

/**
 * Delete expired memories (never `/longterm`) and prune transcript archives beyond the retention policy: older than
 * `archiveMaxAgeDays`, or beyond the newest `archiveMaxCount` per agent. A lead prunes every agent of its space, a
 * worker only its own archives. `INVALID_INPUT` for a bad policy.
 */
export async function gc(stack: Stack, principal: Principal, options: GcOptions = {}): Promise<GcReport> {
  const { allSpaces, ...rest } = options;
  const input = parseInput(gcInput, 'gc', rest);
  const { deletedChunks } = await stack.knowledge.gc(principal, { allSpaces: allSpaces === true });
  const conversations = stack.conversations;
  const configured = conversations?.retention ?? { maxAgeDays: null, maxCount: null };
  const policy = {
    maxAgeDays: input.archiveMaxAgeDays === undefined ? configured.maxAgeDays : input.archiveMaxAgeDays,
    maxCount: input.archiveMaxCount === undefined ? configured.maxCount : input.archiveMaxCount,
  };
  const report: GcReport = { deletedChunks, archives: { policy, agents: 0, deleted: 0 } };
  if (!conversations) {
    report.archives.skipped = 'this stack has no transcript store';
    return report;
  }
  if (policy.maxAgeDays === null && policy.maxCount === null) {
    report.archives.skipped = 'no retention policy: archives are kept forever';
    return report;
  }
  const agents = principal.role === 'lead' ? await conversations.agents(principal.space) : [principal.agentId];
  for (const agentId of agents) {
    report.archives.agents++;
    report.archives.deleted += (await conversations.prune(principal.space, agentId, policy)).length;
  }
  return report;
}
