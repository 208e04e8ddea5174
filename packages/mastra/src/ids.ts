/**
 * The one mapping between Mastra's ids and mem's: a Mastra thread is a mem agent (its transcript holds the thread),
 * a Mastra resource is a mem user (what is distilled from any of the user's threads carries their id and is
 * recalled in their other threads). Both are checked here, before anything is read or written.
 */
import { checkName, MemError, type Principal } from '@mem/core';

/** Letters, digits, `-`, `_` and `.` (not first): the mem name rules, checked strictly. */
const ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}$/;

function check(value: unknown, what: 'threadId' | 'resourceId', where: string): string {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 100)) : String(value);
  const problem =
    typeof value !== 'string'
      ? `it is ${value === null ? 'null' : typeof value}, not a string`
      : value.length === 0
        ? 'it is empty'
        : value.length > 80
          ? `it is ${value.length} characters long (at most 80)`
          : !ID.test(value) || value.includes('..')
            ? 'it may only hold letters, digits, "-", "_" and "." (not first, never "..")'
            : null;
  if (problem) {
    throw new MemError(
      'INVALID_INPUT',
      `${where}: invalid Mastra ${what} ${shown}: ${problem}. mem keeps a thread as an agent and a resource as a user, so both follow mem's name rules, e.g. a UUID or "user-42".`,
      { details: { what, rule: 'name' } },
    );
  }
  return checkName(value as string, what === 'threadId' ? 'agent' : 'user');
}

/** A Mastra thread id, checked: it is the mem agent id of the thread's transcript. */
export function threadAgentId(threadId: unknown, where: string): string {
  return check(threadId, 'threadId', where);
}

/** A Mastra resource id, checked: it is the mem user id. */
export function resourceUserId(resourceId: unknown, where: string): string {
  return check(resourceId, 'resourceId', where);
}

/** Who acts in a thread: the thread as the agent, the resource (when known) as the user. */
export function principalOf(space: string, threadId: string, resourceId: string | undefined, where: string): Principal {
  return {
    space,
    agentId: threadAgentId(threadId, where),
    role: 'worker',
    ...(resourceId !== undefined ? { userId: resourceUserId(resourceId, where) } : {}),
  };
}
