/**
 * The formation part of `stats` (docs/formation.md): how many formed memories a space holds, open and closed, the
 * decision-log lines by decision, and what the runners of this process distilled (runs, counts, tokens).
 */
import type { FormationDecisionName } from '../ports/knowledge-store.js';
import type { Stack } from '../stack.js';
import { formedBatches } from './forget-evidence.js';
import type { DistillationTotals } from './runner/types.js';

export interface FormationStats {
  /** Formed memories: open (not closed) and closed (superseded or invalidated, kept as history). */
  memories: { open: number; closed: number };
  /** Decision-log lines by decision. */
  decisions: Record<FormationDecisionName, number>;
  /** Distillations run by this process's runners since it started, with their tokens (zero in a fresh process). */
  runners: DistillationTotals;
}

/** One pass over the space's formed memories and their log lines. */
export async function formationStats(stack: Stack, space: string): Promise<FormationStats> {
  const out: FormationStats = {
    memories: { open: 0, closed: 0 },
    decisions: { add: 0, update: 0, invalidate: 0, noop: 0 },
    runners: stack.distillationStats(),
  };
  for await (const { docs, lines } of formedBatches(stack.knowledgeStore, space)) {
    for (const d of docs) {
      if (d.invalidatedAt === null) out.memories.open += 1;
      else out.memories.closed += 1;
    }
    for (const line of lines) out.decisions[line.decision] += 1;
  }
  return out;
}
