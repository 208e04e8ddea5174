/**
 * What the per-agent operations share (the notebook in operations-notebook.ts, the conversation in
 * operations-conversation.ts, the runner): which agent a call acts on, and the services they need. Over MCP the
 * notebook tools act on the caller's own notebook; over HTTP a worker may open only its own agent, a lead any agent of
 * its space. The space always comes from the key.
 */
import { type ConversationService, checkName, MemError, type Notebook } from '@mem/core';
import type { OpContext } from './operation.js';

/**
 * The agent an operation acts on, after checking the caller may (never another space: that comes from the key).
 * Another agent's notebook and conversation are private: a worker gets NOT_FOUND (not FORBIDDEN), the same answer
 * whether or not that agent exists, so that it never learns which agents have data.
 */
export function targetAgent(ctx: OpContext, requested?: string, what = 'notebook or conversation'): string {
  const agent = ctx.params.agent ?? requested ?? ctx.principal.agentId;
  checkName(agent, 'agent');
  if (agent !== ctx.principal.agentId && ctx.principal.role !== 'lead') {
    throw new MemError(
      'NOT_FOUND',
      `No ${what} of agent "${agent}" is visible to you: a worker may open only its own ("${ctx.principal.agentId}"); a lead may open any agent's of its space.`,
    );
  }
  return agent;
}

/**
 * A service the stack lacks: CAPABILITY_MISSING with `details.service`, so that each door can say how to configure it
 * (the CLI: `--transcripts`; the server: its start flags).
 */
function missingService(service: 'notebook' | 'conversations', what: string): MemError {
  return new MemError('CAPABILITY_MISSING', `No ${what} store is configured for this stack.`, {
    details: { service },
  });
}

export function notebookService(ctx: OpContext): Notebook {
  const notebook = ctx.stack.notebook;
  if (!notebook) throw missingService('notebook', 'notebook');
  return notebook;
}

export function conversationService(ctx: OpContext): ConversationService {
  const conversations = ctx.stack.conversations;
  if (!conversations) throw missingService('conversations', 'transcript');
  return conversations;
}
