/**
 * `forget` (docs/safety.md): delete everything of one agent or one user in a space, or the memories formed only from
 * some messages, and report what was removed. Lead only. Works over whatever ports a stack has; the report names the ports it lacks.
 */
import {
  agentSessionPrefix,
  contextSettingsSessionId,
  distillCursorSessionId,
  openTasksSessionId,
} from '../domain/agent-sessions.js';
import { checkName } from '../domain/names.js';
import { mayForget } from '../domain/permissions.js';
import { MemError } from '../errors.js';
import type { GraphDeleted } from '../ports/graph-store.js';
import type { DeletedByAgent } from '../ports/knowledge-store.js';
import { parseInput } from '../schemas.js';
import { forgetInput } from '../schemas-forget.js';
import type { Stack } from '../stack.js';
import type { Principal } from '../types.js';
import type { Episode, JsonObject } from '../types-structured.js';
import { dropFromReview, type ReviewItem } from './distill-review.js';
import { forgetFormedByEvidence } from './forget-evidence.js';

/**
 * The metadata key under which an episode records the agent that wrote it. An episode has no owner field of its own,
 * so the CLI, the server and MCP stamp the writer's agent id here (`withEpisodeAuthor`), and `forget --agent` removes
 * the episodes that carry it.
 */
export const EPISODE_AGENT_KEY = 'agentId';

/** An episode input with its writer recorded in `metadata.agentId` (a value given by the caller is replaced). */
export function withEpisodeAuthor<T extends object>(input: T, agentId: string): T & { metadata: JsonObject } {
  const metadata = (input as { metadata?: JsonObject | undefined }).metadata;
  return { ...input, metadata: { ...(metadata ?? {}), [EPISODE_AGENT_KEY]: agentId } };
}

/** The agent that wrote an episode, or null for an episode stored without one (before authors were recorded). */
export function episodeAuthor(episode: Pick<Episode, 'metadata'>): string | null {
  const v = episode.metadata?.[EPISODE_AGENT_KEY];
  return typeof v === 'string' ? v : null;
}

/**
 * What to forget: exactly one of an agent, a user of the principal's space, or messages (by the ids the decision
 * log cites as evidence).
 */
export interface ForgetSubject {
  agentId?: string | undefined;
  userId?: string | undefined;
  messages?: readonly string[] | undefined;
}

export interface ForgetOptions {
  /**
   * Forgetting a user: further agents whose per-user notebooks should be removed. A notebook store cannot list the
   * agents of a space, so by default the agents known from transcripts and the calling lead are covered.
   */
  agents?: readonly string[] | undefined;
  /** Forgetting a user: topics whose per-user, per-topic notebooks should be removed as well (stores cannot list them). */
  topics?: readonly string[] | undefined;
}

/** Records of an agent's sessions `forget` removed, per structured port. */
export interface ForgetSessionsRemoved {
  summaries: number;
  states: number;
  /** Phase changes (a session's whole phase history). */
  phases: number;
  toolEvents: number;
}

/** What `forget` removed. Parts the stack has no port for are 0 and named in `skipped`. */
export interface ForgetReport {
  space: string;
  /** Exactly the subject that was forgotten: `{ agentId }`, `{ userId }` or `{ messages }` (each id once). */
  subject: { agentId: string } | { userId: string } | { messages: string[] };
  removed: {
    /**
     * Knowledge memories the agent owned (both scopes), with their chunks, version rows and rating rows; for a user,
     * the memories about them (`userId`) with their chunks; for messages, the formed memories resting only on them,
     * with their chunks and versions (their ratings go too, uncounted).
     */
    memories: DeletedByAgent;
    /** Transcripts removed (0 or 1 for an agent). */
    transcripts: number;
    archives: number;
    notebookFiles: number;
    facts: number;
    goals: number;
    /** Episodes the agent wrote (recorded in `metadata.agentId`, see `withEpisodeAuthor`). */
    episodes: number;
    /** User records (0 or 1 for a user). */
    users: number;
    /**
     * The agent's session records in the structured stores: every session stored as `<agent>/<session>` (the doors'
     * ids) — running summaries, session states, phase changes and tool events. `states` also counts the agent's two
     * rows the core keeps (context settings and open tasks). 0 when forgetting a user.
     */
    sessions: ForgetSessionsRemoved;
    /**
     * Proposals taken from review queues (distill review mode): an agent's whole queue; a user's proposals, or those
     * resting only on the forgotten messages, in the queues of the agents forget can name.
     */
    proposals: number;
    /**
     * Memory-graph records (docs/graph.md): an agent's entities, relations and observations, those about the user, or
     * those resting only on the forgotten messages, with the relations touching the entities removed and every log line
     * about them.
     */
    graph: GraphDeleted;
  };
  /** Ports this kind of forget would use that the stack does not have (e.g. `transcripts`, `facts`). */
  skipped: string[];
  /**
   * What could not be covered and why (e.g. which agents' notebooks were looked at, or what a store could not erase
   * from its files at rest for want of a privilege).
   */
  notes: string[];
}

function emptyReport(space: string, subject: ForgetReport['subject']): ForgetReport {
  return {
    space,
    subject,
    removed: {
      memories: { documents: 0, chunks: 0, versions: 0, ratings: 0 },
      transcripts: 0,
      archives: 0,
      notebookFiles: 0,
      facts: 0,
      goals: 0,
      episodes: 0,
      users: 0,
      sessions: { summaries: 0, states: 0, phases: 0, toolEvents: 0 },
      proposals: 0,
      graph: { entities: 0, observations: 0, relations: 0, log: 0 },
    },
    skipped: [],
    notes: [],
  };
}

function checkLead(p: Principal): void {
  checkName(p.space, 'space');
  checkName(p.agentId, 'agent');
  if (p.role !== 'lead' && p.role !== 'worker') {
    throw new MemError('INVALID_INPUT', `Invalid role "${String(p.role)}": use "lead" or "worker".`);
  }
  // The operation table checks this before any work; kept here for library callers that call forget directly.
  mayForget(p);
}

const MESSAGES_NOTE = (kept: number) =>
  `messages: ${kept} formed memor${kept === 1 ? 'y' : 'ies'} citing these messages ${kept === 1 ? 'was' : 'were'} kept because other messages also support ${kept === 1 ? 'it' : 'them'}; the transcript messages themselves are not deleted by this subject (forget the agent for that).`;
const EPISODES_USER_NOTE =
  'episodes: an episode records the agent that wrote it, not a user, so forgetting a user removes no episode; forget the agent, or delete episodes by id.';
const EPISODES_UNOWNED_NOTE = (n: number) =>
  `episodes: ${n} episode(s) of the space record no writing agent (stored before authors were recorded) and were kept; delete them by id if they belong to the agent.`;

/** Delete the episodes an agent wrote (by `metadata.agentId`); returns how many, and how many record no author. */
async function forgetEpisodes(
  stack: Stack,
  space: string,
  agentId: string,
): Promise<{ removed: number; unowned: number }> {
  const episodes = stack.structured.episodes;
  if (!episodes) return { removed: 0, unowned: 0 };
  const total = await episodes.count(space);
  if (total === 0) return { removed: 0, unowned: 0 };
  let removed = 0;
  let unowned = 0;
  for (const e of await episodes.recent(space, total)) {
    const author = episodeAuthor(e);
    if (author === null) unowned++;
    else if (author === agentId && (await episodes.delete(space, e.id))) removed++;
  }
  return { removed, unowned };
}

/**
 * Delete the agent's sessions (`<agent>/…`) from the four session ports the stack has, and the agent's context
 * settings and open tasks from the session-state store; ports the stack lacks are added to `report.skipped`.
 */
async function forgetSessions(stack: Stack, space: string, agentId: string, report: ForgetReport): Promise<void> {
  const { summaries, sessionState, phases, toolEvents } = stack.structured;
  const prefix = agentSessionPrefix(agentId);
  const removed = report.removed.sessions;
  if (summaries) removed.summaries = await summaries.deleteSessions(space, prefix);
  else report.skipped.push('summaries');
  if (sessionState) {
    removed.states = await sessionState.deleteSessions(space, prefix);
    for (const id of [contextSettingsSessionId(agentId), openTasksSessionId(agentId), distillCursorSessionId(agentId)])
      if (await sessionState.delete(space, id)) removed.states++;
  } else report.skipped.push('sessionState');
  if (phases) removed.phases = await phases.deleteSessions(space, prefix);
  else report.skipped.push('phases');
  if (toolEvents) removed.toolEvents = await toolEvents.deleteSessions(space, prefix);
  else report.skipped.push('toolEvents');
}

/**
 * Delete every knowledge memory about `userId` (formed for them by any agent, current or closed) with its chunks,
 * versions and decision log. One scan of the space in (createdAt, id) order, then one delete per memory.
 */
async function forgetUserMemories(stack: Stack, space: string, userId: string): Promise<DeletedByAgent> {
  const gone: DeletedByAgent = { documents: 0, chunks: 0, versions: 0, ratings: 0 };
  const docs = new Set<string>();
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = await stack.knowledgeStore.scan({ space, limit: 500, ...(after ? { after } : {}) });
    for (const row of page) if (row.userId === userId) docs.add(row.docId);
    const last = page.at(-1);
    if (!last || page.length < 500) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  for (const docId of docs) {
    const chunks = await stack.knowledgeStore.deleteDocument(space, docId);
    if (chunks > 0) {
      gone.documents++;
      gone.chunks += chunks;
    }
  }
  return gone;
}

/**
 * Erase from the files at rest what the deletes left there (docs/safety.md "forget"): each eraser of the stack, one
 * per storage, after every delete; what one could not erase goes into `report.notes`.
 */
async function eraseDeleted(stack: Stack, report: ForgetReport): Promise<ForgetReport> {
  for (const eraser of stack.erasers) report.notes.push(...(await eraser.eraseDeleted()));
  return report;
}

/**
 * Delete everything of one agent or one user in the principal's space, or the memories formed only from some
 * messages (docs/safety.md), and report what was removed.
 *
 * - Agent: every knowledge memory it owns (agent and swarm scope) with versions and ratings; its transcript and
 *   archives (when the stack has transcripts); all its notebooks, including per-user and per-topic ones (when the
 *   stack has notebooks); the episodes it wrote (`metadata.agentId`, when the stack has episodes); the summaries,
 *   session states, phases and tool events of its sessions (`<agent>/<session>`) and its context settings and open
 *   tasks (for each of those ports the stack has).
 * - User: every knowledge memory about them (`userId`, formed by any agent); its facts, goals and user record (when the stack has those ports); its per-user notebooks under every
 *   agent forget can name — agents with a transcript, the calling lead and `options.agents` — and, with
 *   `options.topics`, its per-topic notebooks there.
 * - Messages: every formed memory (source `distilled`) whose evidence — the message ids cited by all its decision-log
 *   lines — is non-empty and lies entirely within the given ids, with its chunks, versions, ratings and log lines
 *   (`forgetFormedByEvidence`). Memories other messages also support stay (counted in `notes`); transcripts stay.
 *
 * Then every store that keeps deleted rows on disk (a WAL, dead tuples, old versions) erases them (`Stack.erasers`)
 * before the report is returned; what a store could not erase (e.g. for want of a privilege) is named in `notes`.
 *
 * Errors: `STORE_UNAVAILABLE` when a store failed or stayed busy while erasing (the deletes stand: retry the forget);
 * `FORBIDDEN` for a worker; `INVALID_INPUT` unless exactly one of agentId/userId/messages is given, for a bad
 * name, or for a message list that is empty, longer than 1000 or holds an empty or over-long id.
 */
export async function forget(
  stack: Stack,
  principal: Principal,
  subject: ForgetSubject,
  options: ForgetOptions = {},
): Promise<ForgetReport> {
  checkLead(principal);
  const input = parseInput(forgetInput, 'forget', subject);
  const space = principal.space;
  const agents = (options.agents ?? []).map((a) => checkName(a, 'agent'));
  const topics = (options.topics ?? []).map((t) => checkName(t, 'topic'));

  if (input.agentId !== undefined) {
    const agentId = input.agentId;
    const report = emptyReport(space, { agentId });
    report.removed.memories = await stack.knowledgeStore.deleteByAgent(space, agentId);
    if (stack.conversations) {
      const gone = await stack.conversations.forget(space, agentId);
      report.removed.transcripts = gone.transcripts;
      report.removed.archives = gone.archives;
    } else report.skipped.push('transcripts');
    if (stack.notebook) report.removed.notebookFiles = await stack.notebook.forget({ space, agentId });
    else report.skipped.push('notebooks');
    if (stack.structured.episodes) {
      const { removed, unowned } = await forgetEpisodes(stack, space, agentId);
      report.removed.episodes = removed;
      if (unowned > 0) report.notes.push(EPISODES_UNOWNED_NOTE(unowned));
    } else report.skipped.push('episodes');
    report.removed.proposals = await dropFromReview(stack, space, agentId, () => true);
    if (stack.structured.graph) report.removed.graph = await stack.structured.graph.deleteOwner(space, { agentId });
    else report.skipped.push('graph');
    await forgetSessions(stack, space, agentId, report);
    return eraseDeleted(stack, report);
  }

  // The agents whose per-agent rows (review queues, per-user notebooks) a user or message forget looks at.
  const known = new Set<string>([principal.agentId, ...agents]);
  if (stack.conversations) for (const a of await stack.conversations.agents(space)) known.add(a);
  const covered = [...known].sort();
  const dropProposals = async (report: ForgetReport, drop: (item: ReviewItem) => boolean) => {
    if (!stack.structured.sessionState) return;
    for (const agentId of covered) report.removed.proposals += await dropFromReview(stack, space, agentId, drop);
    report.notes.push(
      `review queues: looked at under ${covered.length} agent(s) known from ${stack.conversations ? 'transcripts, ' : ''}the calling lead and options.agents: ${covered.join(', ')}.`,
    );
  };

  if (input.messages !== undefined) {
    const messages = [...new Set(input.messages)];
    const report = emptyReport(space, { messages });
    const ids = new Set(messages);
    const { gone, kept } = await forgetFormedByEvidence(stack, space, ids);
    report.removed.memories = gone;
    if (stack.structured.graph) report.removed.graph = await stack.structured.graph.deleteByEvidence(space, messages);
    else report.skipped.push('graph');
    report.notes.push(MESSAGES_NOTE(kept));
    await dropProposals(report, (item) => item.said.length > 0 && item.said.every((m) => ids.has(m.id)));
    return eraseDeleted(stack, report);
  }

  const userId = input.userId as string;
  const report = emptyReport(space, { userId });
  report.removed.memories = await forgetUserMemories(stack, space, userId);
  const { facts, goals, users } = stack.structured;
  if (facts) report.removed.facts = await facts.deleteUser(space, userId);
  else report.skipped.push('facts');
  if (goals) report.removed.goals = await goals.deleteUser(space, userId);
  else report.skipped.push('goals');
  if (users) report.removed.users = (await users.delete(space, userId)) ? 1 : 0;
  else report.skipped.push('users');
  await dropProposals(report, (item) => item.userId === userId);
  if (stack.structured.graph) report.removed.graph = await stack.structured.graph.deleteOwner(space, { userId });
  else report.skipped.push('graph');
  if (stack.notebook) {
    for (const agentId of covered) {
      report.removed.notebookFiles += await stack.notebook.forget({ space, agentId, user: userId });
      for (const topic of topics) {
        report.removed.notebookFiles += await stack.notebook.forget({ space, agentId, user: userId, topic });
      }
    }
    report.notes.push(
      `notebooks: the notebook store cannot list the agents of a space, so the user's notebooks were removed under ${covered.length} agent(s) known from ${stack.conversations ? 'transcripts, ' : ''}the calling lead and options.agents: ${covered.join(', ')}. Per-topic notebooks of the user are removed only for topics given in options.topics${topics.length > 0 ? ` (${topics.join(', ')})` : ' (none given)'}.`,
    );
  } else report.skipped.push('notebooks');
  if (stack.structured.episodes) report.notes.push(EPISODES_USER_NOTE);
  return eraseDeleted(stack, report);
}
