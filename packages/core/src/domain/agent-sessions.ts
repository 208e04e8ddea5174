/**
 * The session ids under which an agent's structured state is kept (docs/structured.md, docs/safety.md#forget).
 *
 * The doors (HTTP, MCP, CLI) store session `s` of agent `a` as `a/s`, so every session of an agent starts with
 * `a/` (agent names cannot contain a slash, so no other agent's sessions share the prefix). The core keeps three rows
 * per agent in the session-state store under ids that start with a dot, which no agent name may, so they never meet
 * a session the doors store. `forget({ agentId })` removes all of these through the functions below.
 */

/** The id the structured stores use for session `sessionId` of agent `agentId`. */
export const agentSessionId = (agentId: string, sessionId: string): string => `${agentId}/${sessionId}`;

/** The prefix every stored session id of an agent starts with. */
export const agentSessionPrefix = (agentId: string): string => `${agentId}/`;

/** The session-state id of an agent's context settings (context window, threshold, strategy). */
export const contextSettingsSessionId = (agentId: string): string => `.context-settings/${agentId}`;

/** The session-state id under which an agent's distillation cursors persist, one per user it acts for (distill). */
export const distillCursorSessionId = (agentId: string): string => `.distill-cursor/${agentId}`;

/** The session-state id under which an agent's open tasks persist (the runner). */
export const openTasksSessionId = (agentId: string): string => `.open-tasks/${agentId}`;

/** The session-state id of an agent's review queue: distilled proposals waiting for approval (distill review mode). */
export const distillReviewSessionId = (agentId: string): string => `.distill-review/${agentId}`;
