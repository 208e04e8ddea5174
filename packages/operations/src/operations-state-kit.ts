/** What the structured-state operations share (operations-state.ts): the ports, the session a request acts on, paths. */
import { agentSessionId } from '@mem/core';
import { z } from 'zod';
import type { HttpParts, OpContext } from './operation.js';
import { targetAgent } from './operations-agent.js';

export const port = <K extends 'goals' | 'summaries' | 'sessionState' | 'phases' | 'toolEvents'>(
  ctx: OpContext,
  name: K,
) => ctx.stack.port(name);
export const now = (ctx: OpContext) => ctx.stack.clock.now().toISOString();

/** The session an operation acts on: the agent (after the permission check) and the id the stores use. */
export function session(ctx: OpContext, input: { agent?: string | undefined; sessionId: string }) {
  const agent = targetAgent(ctx, input.agent, 'session');
  return { agent, sessionId: input.sessionId, stored: agentSessionId(agent, input.sessionId) };
}

/** A record as the doors show it: the session id as given, with its agent. */
export const shown = <T extends { sessionId: string | null }>(record: T, s: { agent: string; sessionId: string }) => ({
  ...record,
  agent: s.agent,
  sessionId: s.sessionId,
});

/** HTTP: the body plus the session from the path (`/v1/agents/{agent}/sessions/{session}/…`). */
export const withSession = ({ params, body }: HttpParts) => ({
  ...(body as object | undefined),
  sessionId: params.session,
});
export const sessionPath = (rest: string) => `/v1/agents/{agent}/sessions/{session}/${rest}`;
export const noAgent = <S extends z.ZodObject>(schema: S) => schema.omit({ agent: true, sessionId: true } as never);

export const ofSession = { agent: z.string(), sessionId: z.string() };
export const deleted = z.object({ deleted: z.literal(true) });

export const SESSION_GUIDE =
  'Sessions belong to an agent: you act on your own (a lead may name another agent of its space with agent).';
