/**
 * Who may run an operation, in one place: the "lead only" rule and the operations it guards. The operation table
 * (@mem/operations) declares these as each operation's `permission`, checked before any work whatever the door; a
 * service a library calls directly (core's `forget`) runs the same rule as its last line of defence.
 */
import { MemError } from '../errors.js';
import type { Principal } from '../types.js';

/** A permission: returns for a principal that may run the operation, throws FORBIDDEN (saying what to do) otherwise. */
export type Permission = (principal: Principal) => void;

/**
 * Only a lead may run `operation`; `why` says what makes it a lead's job (it is shown to the refused worker).
 * FORBIDDEN carries `details.operation` and `details.role`.
 */
export function leadOnly(operation: string, why: (p: Principal) => string): Permission {
  return (p) => {
    if (p.role === 'lead') return;
    throw new MemError(
      'FORBIDDEN',
      `Only a lead may run ${operation}: ${why(p)}. Agent "${p.agentId}" is a worker: ask a lead to run it (CLI: --role lead; server: a lead's API key).`,
      { details: { operation, role: p.role } },
    );
  };
}

/** consolidate: it writes facts for the whole space. */
export const mayConsolidate: Permission = leadOnly(
  'consolidate',
  (p) => `it writes facts for the whole space "${p.space}"`,
);

/** inject-learning: it writes into another agent's memory, at swarm scope. */
export const mayInjectLearning: Permission = leadOnly(
  'inject-learning',
  () => "it writes into another agent's memory at swarm scope (a worker stores its own memory with memory-store)",
);

/** forget: it deletes everything of an agent or a user in the space. */
export const mayForget: Permission = leadOnly(
  'forget',
  (p) => `it deletes everything of an agent or a user in space "${p.space}"`,
);

/** The lead-only operations' permissions, by operation (what the operation table declares). */
export const permissions = Object.freeze({
  consolidate: mayConsolidate,
  forget: mayForget,
  injectLearning: mayInjectLearning,
});
