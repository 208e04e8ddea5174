/**
 * The runner (docs/runner.md): one agent turn and one task over a stack's services, so that every framework adapter
 * (and every door) gets the same loop — write the new messages through, compress at threshold × context window,
 * assemble system prompt → rules → notebook → persisted conversation (with its compaction summary) → this session's
 * messages → recall block → the new messages, and store a `task_completion` / `session_summary` memory at the end.
 * Pure domain: every byte goes through the stack's ports.
 */
import { z } from 'zod';
import { createTemplateSummarizer } from '../adapters/template-summarizer.js';
import { openTasksSessionId } from '../domain/agent-sessions.js';
import { COMPACTION_STRATEGIES, type CompactionStrategy } from '../domain/compaction.js';
import { checkName } from '../domain/names.js';
import { renderMessageLine } from '../domain/transcript-format.js';
import { MemError } from '../errors.js';
import { type Summarizer, sumUsage, type TokenUsage } from '../ports/summarizer.js';
import { parseInput } from '../schemas.js';
import { transcriptRoleSchema } from '../schemas-notebook.js';
import type { Stack } from '../stack.js';
import type { Principal } from '../types.js';
import type { CompressionOutcome, ContextMessage, Conversation } from './conversation/index.js';
import { defaultName, type StoreResult } from './knowledge/index.js';

/** Context window, threshold and strategy a runner uses when the caller sets none. */
export interface ModelContextDefaults {
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
}

/** Context windows of well-known model families, first match wins; anything else gets 128,000 tokens. */
const MODEL_WINDOWS: readonly [RegExp, number][] = [
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-5/i, 400_000],
  [/gpt-4o|gpt-4-turbo/i, 128_000],
  [/gpt-3\.5/i, 16_385],
  [/gpt-4/i, 8_192],
  [/(^|\/)o[1345](-|$)/i, 200_000],
  [/claude/i, 200_000],
  [/gemini/i, 1_048_576],
  [/llama-?3\.[1-3]/i, 128_000],
  [/llama/i, 8_192],
  [/mistral|mixtral|qwen/i, 32_768],
];

/** The defaults for a model id: its family's context window (128,000 when unknown), threshold 0.9, `summarize`. */
export function modelContextDefaults(model?: string | null): ModelContextDefaults {
  const hit = model ? MODEL_WINDOWS.find(([re]) => re.test(model)) : undefined;
  return { contextWindow: hit?.[1] ?? 128_000, threshold: 0.9, strategy: 'summarize' };
}

export interface RunnerOptions {
  /** The model id; picks the default context window (`modelContextDefaults`). */
  model?: string | undefined;
  /** The model's context window in tokens (default: per model). */
  contextWindow?: number | undefined;
  /** Compress when the context reaches threshold × contextWindow (default 0.9). */
  threshold?: number | undefined;
  /** `summarize` (default), `sliding-window` or `drop-tool-results`. */
  strategy?: CompactionStrategy | undefined;
  /** Writes compaction and session summaries (default: the stack's summariser for compaction, the template one for sessions). */
  summarizer?: Summarizer | undefined;
  /** Tokens kept free for the model's answer (default 0). */
  reserveTokens?: number | undefined;
  /** Most memories in the recall block (default: the knowledge service's `recallLimit`). */
  recallLimit?: number | undefined;
  /** Role of the recall block's message: `user` (default, accepted by every provider mid-conversation) or `system`. */
  recallRole?: 'user' | 'system' | undefined;
}

/** Options after defaults. */
export interface ResolvedRunnerOptions {
  model: string | null;
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
  reserveTokens: number;
  recallLimit: number | undefined;
  recallRole: 'user' | 'system';
}

/** A message of a turn, as the caller has it (a tool result's content is its text). */
export interface RunnerMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

export interface TurnInput {
  principal: Principal;
  /** The task text: the recall query. Later turns of the same `taskId` may leave it out. */
  task?: string | undefined;
  /** Ties turns, recall and the task memory together. */
  taskId?: string | undefined;
  systemPrompt?: string | undefined;
  rules?: readonly string[] | undefined;
  /** The messages since the last turn; written through before the context is assembled. */
  messages?: readonly RunnerMessage[] | undefined;
  /**
   * The newest N history messages the caller sends itself in its own format (a framework's tool calls and results);
   * they are left out of `messages` and the recall block goes last. Default 0.
   */
  omitNewest?: number | undefined;
}

/**
 * A model call a turn (or a task's or session's end) made and what it spent: `compaction` and `session-summary` by
 * the summariser, `recall-embedding` (the recall query) and `memory-embedding` (the stored task or session memory) by
 * the embedder. Embedder calls that spent no tokens (a local embedder) are not listed.
 */
export interface SpentTokens {
  operation: 'compaction' | 'session-summary' | 'recall-embedding' | 'memory-embedding';
  by: string;
  usage: TokenUsage;
}

/** What assembleTurn did and what the context holds. */
export interface ContextReport {
  model: string | null;
  contextWindow: number;
  threshold: number;
  strategy: CompactionStrategy;
  /** Tokens at which compaction fires: threshold × contextWindow. */
  compressAt: number;
  /** Tokens of the assembled context (with the tokenizer of the stack), the omitted newest messages included. */
  tokens: number;
  reserveTokens: number;
  /** Oldest history messages left out because they did not fit. */
  omittedMessages: number;
  /** Tokens of the notebook block (0 without a notebook). */
  notebookTokens: number;
  /** The memories in the recall block. */
  recalled: { id: string; key: string; name: string; similarity: number | null; relevance: number }[];
  recallQuery: string | null;
  taskId: string | null;
  /** Messages written through by this call. */
  written: number;
  /** What the compaction check did (null: under the threshold). */
  compaction: CompressionOutcome | null;
  /** Model calls made for this turn and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}

export interface AssembledTurn {
  /** The messages to send, oldest first. */
  messages: ContextMessage[];
  report: ContextReport;
}

export interface RecordInput {
  principal: Principal;
  messages: readonly RunnerMessage[];
}

export interface EndTaskInput {
  principal: Principal;
  taskId: string;
  /** What was done and learned: the content of the task memory. */
  summary: string;
  /** The task text (default: the one given to assembleTurn for this taskId). */
  task?: string | undefined;
  outcome?: 'success' | 'failure' | 'partial' | undefined;
  /** A task the agent started on its own (a schedule, a trigger): no memory unless `persistMemory`. */
  automatic?: boolean | undefined;
  persistMemory?: boolean | undefined;
  tags?: readonly string[] | undefined;
  /** Ratings of recalled memories for this task (recorded with its taskId). */
  ratings?: readonly { id: string; useful: boolean; note?: string | undefined }[] | undefined;
}

export interface EndTaskResult {
  taskId: string;
  stored: StoreResult | null;
  /** Why no memory was stored. */
  skipped?: string;
  rated: number;
  /** Model calls made to end the task (the embedding of its memory) and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}

export interface EndSessionInput {
  principal: Principal;
  /** The summary to store; without it the summariser writes one from the transcript. */
  summary?: string | undefined;
  /** Summarise only the messages written at or after this time (ISO-8601; e.g. when the session started). */
  since?: string | undefined;
  tags?: readonly string[] | undefined;
}

export interface EndSessionResult {
  stored: StoreResult | null;
  skipped?: string;
  /** Model calls made to end the session (the summariser, the embedding of its memory) and their token usage. */
  spent: SpentTokens[];
  /** Sum of `spent`. */
  usage: TokenUsage;
}

/** Open tasks kept per agent; the oldest go first. */
const MAX_OPEN_TASKS = 100;

const text = (what: string, max: number) =>
  z
    .string()
    .max(max, `${what} has at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${what} must not be empty`);
const taskIdSchema = z.string().trim().min(1, 'taskId must not be empty').max(200, 'taskId has at most 200 characters');
const messageSchema = z.object({ role: transcriptRoleSchema, content: z.string() }).strict();

/** The input of `assembleTurn` without the principal (what the HTTP, MCP and CLI doors accept). */
export const runnerTurnInput = z
  .object({
    task: text('task', 20_000).optional(),
    taskId: taskIdSchema.optional(),
    systemPrompt: z.string().max(200_000).optional(),
    rules: z.array(z.string().max(4_000)).max(100).optional(),
    messages: z.array(messageSchema).max(1_000, 'at most 1000 messages per turn').optional(),
    omitNewest: z.number().int().min(0).optional(),
  })
  .strict();

/** The input of `recordTurn` without the principal. */
export const runnerRecordInput = z.object({ messages: z.array(messageSchema).max(1_000) }).strict();

/** The input of `endTask` without the principal. */
export const runnerEndTaskInput = z
  .object({
    taskId: taskIdSchema,
    summary: text('summary', 100_000),
    task: text('task', 20_000).optional(),
    outcome: z.enum(['success', 'failure', 'partial']).optional(),
    automatic: z.boolean().optional(),
    persistMemory: z.boolean().optional(),
    tags: z.array(z.string()).max(16).optional(),
    ratings: z
      .array(z.object({ id: z.string().min(1), useful: z.boolean(), note: z.string().max(280).optional() }).strict())
      .max(100)
      .optional(),
  })
  .strict();

/** The input of `endSession` without the principal. */
export const runnerEndSessionInput = z
  .object({
    summary: text('summary', 100_000).optional(),
    since: z.iso
      .datetime({ offset: true, message: 'since must be an ISO-8601 time, e.g. 2026-05-01T09:00:00Z' })
      .optional(),
    tags: z.array(z.string()).max(16).optional(),
  })
  .strict();

function addUsage(spent: readonly SpentTokens[]): TokenUsage {
  return sumUsage(spent.map((s) => s.usage));
}

const spentAny = (u: TokenUsage) => u.inputTokens > 0 || u.outputTokens > 0 || u.totalTokens > 0;

function checkPrincipal(p: Principal): Principal {
  if (!p || typeof p !== 'object')
    throw new MemError('INVALID_INPUT', 'principal is required: give {space, agentId, role}.');
  checkName(p.space, 'space');
  checkName(p.agentId, 'agent');
  if (p.role !== 'lead' && p.role !== 'worker') {
    throw new MemError('INVALID_INPUT', `Invalid role "${String(p.role)}": use "lead" or "worker".`);
  }
  return p;
}

function split<T extends { principal: Principal }>(input: T): [Principal, Omit<T, 'principal'>] {
  if (!input || typeof input !== 'object') throw new MemError('INVALID_INPUT', 'Give an object with a principal.');
  const { principal, ...rest } = input;
  return [checkPrincipal(principal), rest];
}

/**
 * One agent turn and one task (docs/runner.md). Keeps one `Conversation` per agent (and system prompt/rules), so call
 * it from one process per agent, like a conversation.
 */
export class Runner {
  readonly options: ResolvedRunnerOptions;
  private readonly stack: Stack;
  private readonly summarizer: Summarizer | undefined;
  private readonly open = new Map<string, { signature: string; conversation: Conversation }>();
  private readonly tasks = new Map<string, string>();

  constructor(stack: Stack, options: RunnerOptions = {}) {
    if (!stack.conversations) {
      throw new MemError(
        'CAPABILITY_MISSING',
        'The runner needs a transcript store: give createStack a `transcripts` store (e.g. @mem/store-markdown, @mem/store-sqlite or createInMemoryTranscriptStore()).',
        { details: { port: 'transcripts' } },
      );
    }
    this.stack = stack;
    this.summarizer = options.summarizer;
    const defaults = modelContextDefaults(options.model);
    const o: ResolvedRunnerOptions = {
      model: options.model ?? null,
      contextWindow: options.contextWindow ?? defaults.contextWindow,
      threshold: options.threshold ?? defaults.threshold,
      strategy: options.strategy ?? defaults.strategy,
      reserveTokens: options.reserveTokens ?? 0,
      recallLimit: options.recallLimit,
      recallRole: options.recallRole ?? 'user',
    };
    const bad = (what: string) => new MemError('INVALID_INPUT', `Invalid runner option: ${what}.`);
    if (!(Number.isInteger(o.contextWindow) && o.contextWindow > 0))
      throw bad(`contextWindow must be a positive whole number of tokens (got ${o.contextWindow})`);
    if (!(o.threshold > 0 && o.threshold <= 1)) throw bad(`threshold must be in (0, 1] (got ${o.threshold})`);
    if (!COMPACTION_STRATEGIES.includes(o.strategy))
      throw bad(`strategy must be one of ${COMPACTION_STRATEGIES.join(', ')} (got "${String(o.strategy)}")`);
    if (!(Number.isInteger(o.reserveTokens) && o.reserveTokens >= 0 && o.reserveTokens < o.contextWindow))
      throw bad(`reserveTokens must be a whole number from 0 to below contextWindow (got ${o.reserveTokens})`);
    if (o.recallLimit !== undefined && !(Number.isInteger(o.recallLimit) && o.recallLimit >= 1 && o.recallLimit <= 50))
      throw bad(`recallLimit must be a whole number from 1 to 50 (got ${o.recallLimit})`);
    if (o.recallRole !== 'user' && o.recallRole !== 'system')
      throw bad(`recallRole must be "user" or "system" (got "${String(o.recallRole)}")`);
    this.options = o;
  }

  /** The agent's conversation; reopened (and reloaded from the store) when the system prompt or rules change. */
  private conversation(p: Principal, systemPrompt?: string, rules?: readonly string[]): Conversation {
    const id = `${p.space}\u0000${p.agentId}`;
    const signature = JSON.stringify([systemPrompt ?? null, rules ?? null]);
    const held = this.open.get(id);
    if (held && held.signature === signature) return held.conversation;
    const conversation = this.stack.conversations!.open({
      space: p.space,
      agentId: p.agentId,
      systemPrompt,
      rules,
      summarizer: this.summarizer,
      options: {
        contextLength: this.options.contextWindow,
        threshold: this.options.threshold,
        strategy: this.options.strategy,
      },
    });
    this.open.set(id, { signature, conversation });
    return conversation;
  }

  private held(p: Principal): Conversation {
    return this.open.get(`${p.space}\u0000${p.agentId}`)?.conversation ?? this.conversation(p);
  }

  private embedding(operation: 'recall-embedding' | 'memory-embedding', usage: TokenUsage): SpentTokens {
    return { operation, by: this.stack.knowledge.embedder?.id ?? 'embedder', usage };
  }

  /** The embedding spend of a stored memory, as a `spent` list. */
  private storedSpent(stored: StoreResult): SpentTokens[] {
    return spentAny(stored.usage) ? [this.embedding('memory-embedding', stored.usage)] : [];
  }

  private taskKey(p: Principal, taskId: string): string {
    return `${p.space}\u0000${p.agentId}\u0000${taskId}`;
  }

  /**
   * The open tasks of an agent (taskId → task text) as the session-state store keeps them, so that a later turn or
   * `endTask` in another process finds the task text; without that store they live in this runner only.
   */
  private async openTasks(p: Principal): Promise<Record<string, string>> {
    const store = this.stack.structured.sessionState;
    if (!store) return {};
    const row = await store.get(p.space, openTasksSessionId(p.agentId));
    const out: Record<string, string> = {};
    const value = row?.state;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [id, text] of Object.entries(value)) if (typeof text === 'string') out[id] = text;
    }
    return out;
  }

  private async saveOpenTasks(p: Principal, tasks: Record<string, string>): Promise<void> {
    const store = this.stack.structured.sessionState;
    if (!store) return;
    const id = openTasksSessionId(p.agentId);
    const entries = Object.entries(tasks).slice(-MAX_OPEN_TASKS);
    if (entries.length === 0) await store.delete(p.space, id);
    else await store.set(p.space, id, Object.fromEntries(entries), this.stack.clock.now().toISOString());
  }

  /** The text of an open task: this runner's, else the stored one. */
  private async taskText(p: Principal, taskId: string): Promise<string | undefined> {
    const key = this.taskKey(p, taskId);
    const held = this.tasks.get(key);
    if (held !== undefined) return held;
    // Read once per process: later turns of the task find it here.
    const stored = (await this.openTasks(p))[taskId];
    if (stored !== undefined) this.tasks.set(key, stored);
    return stored;
  }

  /** Write messages through to the agent's transcript (assistant answers and tool results included). */
  async recordTurn(input: RecordInput): Promise<{ written: number }> {
    const [p, rest] = split(input);
    const { messages } = parseInput(runnerRecordInput, 'runner record-turn', rest);
    const written = await this.held(p).addMany(messages);
    return { written: written.length };
  }

  /**
   * One turn: write `messages` through, compress when the context reached threshold × window (a failed summariser
   * keeps the transcript and is reported), then assemble the context with the notebook and the recall block.
   */
  async assembleTurn(input: TurnInput): Promise<AssembledTurn> {
    const [p, rest] = split(input);
    const t = parseInput(runnerTurnInput, 'runner assemble-turn', rest);
    const conversation = this.conversation(p, t.systemPrompt, t.rules);
    const written = t.messages ? await conversation.addMany(t.messages) : [];
    const compaction = await conversation.maybeCompress();
    const spent: SpentTokens[] = [];
    if (compaction?.status === 'compacted' && compaction.usage) {
      spent.push({ operation: 'compaction', by: compaction.summarizer ?? 'summarizer', usage: compaction.usage });
    }

    if (t.task && t.taskId && this.tasks.get(this.taskKey(p, t.taskId)) !== t.task) {
      this.tasks.set(this.taskKey(p, t.taskId), t.task);
      const open = await this.openTasks(p);
      if (open[t.taskId] !== t.task) {
        delete open[t.taskId];
        await this.saveOpenTasks(p, { ...open, [t.taskId]: t.task });
      }
    }
    const lastUser = [...(t.messages ?? [])].reverse().find((m) => m.role === 'user' && m.content.trim().length > 0);
    const query = t.task ?? (t.taskId ? await this.taskText(p, t.taskId) : undefined) ?? lastUser?.content ?? null;

    const notebook = this.stack.notebook
      ? await this.stack.notebook.inject({ space: p.space, agentId: p.agentId })
      : null;
    const recall = query
      ? await this.stack.knowledge.recall(p, query, this.options.recallLimit ? { limit: this.options.recallLimit } : {})
      : null;
    if (recall && spentAny(recall.usage)) spent.push(this.embedding('recall-embedding', recall.usage));
    const ctx = await conversation.context({
      notebook: notebook?.text,
      recall: recall?.block ?? undefined,
      reserveTokens: this.options.reserveTokens,
    });

    const messages = ctx.messages.map((m) => (m.role === 'tool' ? { role: 'user' as const, content: m.content } : m));
    let recallMessage: ContextMessage | undefined;
    if (recall?.block) {
      recallMessage = { role: this.options.recallRole, content: messages.pop()!.content };
    }
    // Leave out the newest transcript messages the caller sends itself — only while the tail is them (after a
    // compaction they live in the summary, and nothing else is ever removed).
    const omit = t.omitNewest ?? 0;
    if (omit > 0) {
      const newest = (await conversation.messages()).slice(-omit).map(renderMessageLine);
      while (newest.length > 0 && messages.length > 0 && messages.at(-1)!.content === newest.at(-1)) {
        messages.pop();
        newest.pop();
      }
    }
    if (recallMessage) {
      // Before the new messages, so that the turn itself stays last; last when the caller appends its own.
      const at = omit > 0 ? messages.length : Math.max(0, messages.length - written.length);
      messages.splice(at, 0, recallMessage);
    }

    return {
      messages,
      report: {
        model: this.options.model,
        contextWindow: this.options.contextWindow,
        threshold: this.options.threshold,
        strategy: this.options.strategy,
        compressAt: this.options.threshold * this.options.contextWindow,
        tokens: ctx.tokens,
        reserveTokens: this.options.reserveTokens,
        omittedMessages: ctx.omittedMessages,
        notebookTokens: notebook?.tokens ?? 0,
        recalled: (recall?.memories ?? []).map((m) => ({
          id: m.docId,
          key: m.key,
          name: m.name,
          similarity: m.similarity,
          relevance: m.relevance,
        })),
        recallQuery: query,
        taskId: t.taskId ?? null,
        written: written.length,
        compaction,
        spent,
        usage: addUsage(spent),
      },
    };
  }

  /**
   * End a task: rate the memories it used (with its taskId) and store a `task_completion` memory — for an automatic
   * task only with `persistMemory: true`.
   */
  async endTask(input: EndTaskInput): Promise<EndTaskResult> {
    const [p, rest] = split(input);
    const t = parseInput(runnerEndTaskInput, 'runner end-task', rest);
    const key = this.taskKey(p, t.taskId);
    let rated = 0;
    for (const r of t.ratings ?? []) {
      await this.stack.knowledge.rate(p, {
        id: r.id,
        useful: r.useful,
        taskId: t.taskId,
        ...(r.note ? { note: r.note } : {}),
      });
      rated += 1;
    }
    const task = t.task ?? (await this.taskText(p, t.taskId));
    this.tasks.delete(key);
    const open = await this.openTasks(p);
    if (t.taskId in open) {
      delete open[t.taskId];
      await this.saveOpenTasks(p, open);
    }
    if (t.automatic && !t.persistMemory) {
      return {
        taskId: t.taskId,
        stored: null,
        skipped: 'automatic task: pass persistMemory: true to keep its memory',
        rated,
        spent: [],
        usage: addUsage([]),
      };
    }
    const head = [`Task ${t.taskId}${task ? `: ${task.trim()}` : ''}`];
    if (t.outcome) head.push(`Outcome: ${t.outcome}`);
    const stored = await this.stack.knowledge.store(p, {
      content: `${head.join('\n')}\n\n${t.summary.trim()}`,
      name: `Task ${defaultName(t.taskId, 40)}: ${defaultName(task ?? t.summary, 100)}`,
      source: 'task_completion',
      tags: ['task-completion', ...(t.tags ?? [])],
    });
    const spent = this.storedSpent(stored);
    return { taskId: t.taskId, stored, rated, spent, usage: addUsage(spent) };
  }

  /**
   * End a session: store a `session_summary` memory — the given summary, or one the summariser writes from the
   * transcript. A failed summariser stores nothing and leaves the transcript as it was.
   */
  async endSession(input: EndSessionInput): Promise<EndSessionResult> {
    const [p, rest] = split(input);
    const t = parseInput(runnerEndSessionInput, 'runner end-session', rest);
    const spent: SpentTokens[] = [];
    let summary = t.summary;
    if (summary === undefined) {
      const from = t.since ? Date.parse(t.since) : Number.NEGATIVE_INFINITY;
      const messages = (await this.held(p).messages()).filter((m) => Date.parse(m.at) >= from);
      if (messages.length === 0) {
        const where = t.since ? `since ${t.since}` : '';
        return {
          stored: null,
          skipped: `the transcript holds no messages ${where}`.trim(),
          spent,
          usage: addUsage(spent),
        };
      }
      const summarizer = this.summarizer ?? createTemplateSummarizer();
      try {
        const result = await summarizer.summarize({ messages, agent: p.agentId });
        spent.push({ operation: 'session-summary', by: result.summarizer, usage: result.usage });
        summary = result.summary;
      } catch (error) {
        const reason = `summariser "${summarizer.id}" failed: ${error instanceof Error ? error.message : String(error)}`;
        return { stored: null, skipped: `${reason}; the transcript is kept`, spent, usage: addUsage(spent) };
      }
      if (!summary || summary.trim().length === 0) {
        return {
          stored: null,
          skipped: `summariser "${summarizer.id}" returned an empty summary`,
          spent,
          usage: addUsage(spent),
        };
      }
    }
    const day = this.stack.clock.now().toISOString().slice(0, 10);
    const stored = await this.stack.knowledge.store(p, {
      content: summary,
      name: `Session summary ${day}: ${defaultName(summary, 80)}`,
      source: 'session_summary',
      tags: ['session-summary', ...(t.tags ?? [])],
    });
    spent.push(...this.storedSpent(stored));
    return { stored, spent, usage: addUsage(spent) };
  }
}
