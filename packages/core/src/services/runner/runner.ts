import { openTasksSessionId } from '../../domain/agent-sessions.js';
import { COMPACTION_STRATEGIES } from '../../domain/compaction.js';
import { renderMessageLine } from '../../domain/transcript-format.js';
import { MemError } from '../../errors.js';
import type { Summarizer, TokenUsage } from '../../ports/summarizer.js';
import type { TurnMessage } from '../../ports/transcript-store.js';
import { parseInput } from '../../schemas.js';
import type { Stack } from '../../stack.js';
import type { Principal } from '../../types.js';
import type { Conversation } from '../conversation/conversation.js';
import type { ContextInput } from '../conversation/options.js';
import { defaultName, type StoreResult } from '../knowledge/index.js';
import { BackgroundDistiller, DEFAULT_DISTILL_TOKENS } from './distiller.js';
import {
  addUsage,
  MAX_OPEN_TASKS,
  runnerEndSessionInput,
  runnerEndTaskInput,
  runnerRecordInput,
  runnerTurnInput,
  spentAny,
  split,
} from './inputs.js';
import type * as R from './types.js';
import { modelContextDefaults } from './types.js';

/** Agents whose conversation one runner keeps open, and open tasks whose text it keeps: the oldest is dropped (and reloaded from the stores when needed again). */
const MAX_HELD_AGENTS = 1_000;
const MAX_HELD_TASKS = 10_000;

function dropOldest(map: Map<string, unknown>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as string);
}

/**
 * One agent turn and one task (docs/runner.md). Keeps one `Conversation` per agent (and system prompt/rules), so call
 * it from one process per agent, like a conversation.
 */
export class Runner {
  readonly options: R.ResolvedRunnerOptions;
  private readonly stack: Stack;
  private readonly summarizer: Summarizer | undefined;
  private readonly open = new Map<string, { signature: string; conversation: Conversation }>();
  private readonly tasks = new Map<string, string>();
  private readonly distiller: BackgroundDistiller | null;

  constructor(stack: Stack, options: R.RunnerOptions = {}) {
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
    const o: R.ResolvedRunnerOptions = {
      model: options.model ?? null,
      contextWindow: options.contextWindow ?? defaults.contextWindow,
      threshold: options.threshold ?? defaults.threshold,
      strategy: options.strategy ?? defaults.strategy,
      reserveTokens: options.reserveTokens ?? 0,
      recallLimit: options.recallLimit,
      recallRole: options.recallRole ?? 'user',
      distill: options.distill ?? true,
      distillTokens: options.distillTokens ?? DEFAULT_DISTILL_TOKENS,
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
    if (typeof o.distill !== 'boolean') throw bad(`distill must be true or false (got ${JSON.stringify(o.distill)})`);
    if (!(Number.isInteger(o.distillTokens) && o.distillTokens >= 1 && o.distillTokens <= 1_000_000))
      throw bad(`distillTokens must be a whole number from 1 to 1000000 (got ${o.distillTokens})`);
    this.options = o;
    this.distiller = o.distill ? new BackgroundDistiller(stack, o.distillTokens, stack.conversations.logger) : null;
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
    this.open.delete(id);
    this.open.set(id, { signature, conversation });
    dropOldest(this.open, MAX_HELD_AGENTS);
    return conversation;
  }

  private held(p: Principal): Conversation {
    return this.open.get(`${p.space}\u0000${p.agentId}`)?.conversation ?? this.conversation(p);
  }

  private embedding(operation: 'recall-embedding' | 'memory-embedding', usage: TokenUsage): R.SpentTokens {
    return { operation, by: this.stack.knowledge.embedder?.id ?? 'embedder', usage };
  }

  /** The embedding spend of a stored memory, as a `spent` list. */
  private storedSpent(stored: StoreResult): R.SpentTokens[] {
    return spentAny(stored.usage) ? [this.embedding('memory-embedding', stored.usage)] : [];
  }

  private holdTask(key: string, text: string): void {
    this.tasks.delete(key);
    this.tasks.set(key, text);
    dropOldest(this.tasks, MAX_HELD_TASKS);
  }

  /**
   * Drop what this runner holds in memory for one agent (its open conversation and the text of its open tasks), as
   * `forget` must: the forgotten data may not outlive the delete here. Returns how many entries were dropped.
   */
  release(space: string, agentId: string): number {
    const agent = `${space}\u0000${agentId}`;
    let n = this.open.delete(agent) ? 1 : 0;
    n += this.distiller?.release(space, agentId) ?? 0;
    for (const key of [...this.tasks.keys()]) {
      if (key.startsWith(`${agent}\u0000`)) n += this.tasks.delete(key) ? 1 : 0;
    }
    return n;
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
    if (stored !== undefined) this.holdTask(key, stored);
    return stored;
  }

  /** Write messages through to the agent's transcript (assistant answers and tool results included). */
  async recordTurn(input: R.RecordInput): Promise<{ written: number }> {
    const [p, rest] = split(input);
    const { messages } = parseInput(runnerRecordInput, 'runner record-turn', rest);
    const written = await this.write(p, this.held(p), messages);
    return { written: written.length };
  }

  /** Write messages through (their tokens count toward the next background distillation). */
  private write(p: Principal, conversation: Conversation, messages: readonly TurnMessage[]) {
    return this.distiller ? this.distiller.write(p, conversation, messages) : conversation.addMany(messages);
  }

  /**
   * Compress when the whole prompt (`prompt`: notebook, recall block, tools, reserve, with the history) is due; with
   * distillation, after distilling what the compaction would archive.
   */
  private compactIfDue(p: Principal, conversation: Conversation, prompt: ContextInput) {
    return this.distiller ? this.distiller.compactIfDue(p, conversation, prompt) : conversation.maybeCompress(prompt);
  }

  /**
   * Distil now what the agent's transcript holds undistilled for `principal` (after any run in flight) and wait for
   * it: for a short-lived process before it exits. Null when the runner's `distill` is off.
   */
  async distill(principal: Principal): Promise<R.DistillationRun | null> {
    const [p] = split({ principal });
    return this.distiller ? this.distiller.drain(p, 'flush') : null;
  }

  /** Wait for the background distillations this runner started. */
  settle(): Promise<void> {
    return this.distiller?.settle() ?? Promise.resolve();
  }

  /** Counts and tokens of every distillation this runner ran (null: distill is off). */
  distillationStats(): R.DistillationTotals | null {
    return this.distiller?.stats() ?? null;
  }

  /** Distillation spend as `spent` entries (runs that spent no tokens are not listed). */
  private distillSpent(runs: readonly R.DistillationRun[]): R.SpentTokens[] {
    return runs
      .filter((r) => spentAny(r.usage))
      .map((r) => ({ operation: 'distillation' as const, by: r.extractor, usage: r.usage }));
  }

  /**
   * One turn: write `messages` through, compress when the context reached threshold × window (a failed summariser
   * keeps the transcript and is reported), then assemble the context with the notebook and the recall block.
   */
  async assembleTurn(input: R.TurnInput): Promise<R.AssembledTurn> {
    const [p, rest] = split(input);
    const t = parseInput(runnerTurnInput, 'runner assemble-turn', rest);
    const conversation = this.conversation(p, t.systemPrompt, t.rules);
    const written = t.messages ? await this.write(p, conversation, t.messages) : [];
    const spent: R.SpentTokens[] = [];

    if (t.task && t.taskId && this.tasks.get(this.taskKey(p, t.taskId)) !== t.task) {
      this.holdTask(this.taskKey(p, t.taskId), t.task);
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
    // The budget is the whole prompt: compaction counts the notebook, the recall block and the tools with the history.
    const prompt: ContextInput = {
      notebook: notebook?.text,
      recall: recall?.block ?? undefined,
      reserveTokens: this.options.reserveTokens,
      ...(t.tools ? { tools: t.tools } : {}),
    };
    const compaction = await this.compactIfDue(p, conversation, prompt);
    if (compaction?.status === 'compacted' && compaction.usage) {
      spent.push({ operation: 'compaction', by: compaction.summarizer ?? 'summarizer', usage: compaction.usage });
    }
    const distillation = this.distiller?.take(p) ?? null;
    if (distillation) spent.push(...this.distillSpent(distillation.finished));
    const ctx = await conversation.context(prompt);

    const messages = ctx.messages.map((m) => (m.role === 'tool' ? { role: 'user' as const, content: m.content } : m));
    let recallMessage: TurnMessage | undefined;
    if (recall?.block && !ctx.leftOut.recall) {
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
        leftOut: ctx.leftOut,
        toolTokens: ctx.toolTokens,
        overBudget: ctx.overBudget,
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
        distillation,
        spent,
        usage: addUsage(spent),
      },
    };
  }

  /**
   * End a task: rate the memories it used (with its taskId) and store a `task_completion` memory — for an automatic
   * task only with `persistMemory: true`.
   */
  async endTask(input: R.EndTaskInput): Promise<R.EndTaskResult> {
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
  async endSession(input: R.EndSessionInput): Promise<R.EndSessionResult> {
    const [p, rest] = split(input);
    const t = parseInput(runnerEndSessionInput, 'runner end-session', rest);
    // What the transcript still holds undistilled is distilled first (and waited for).
    const distillation = this.distiller ? await this.distiller.drain(p, 'session-end') : null;
    const spent: R.SpentTokens[] = distillation ? this.distillSpent([distillation]) : [];
    let summary = t.summary;
    if (summary === undefined) {
      const from = t.since ? Date.parse(t.since) : Number.NEGATIVE_INFINITY;
      const messages = (await this.held(p).messages()).filter((m) => Date.parse(m.at) >= from);
      if (messages.length === 0) {
        const where = t.since ? `since ${t.since}` : '';
        return {
          stored: null,
          skipped: `the transcript holds no messages ${where}`.trim(),
          distillation,
          spent,
          usage: addUsage(spent),
        };
      }
      const summarizer = this.summarizer ?? this.stack.summarizer;
      try {
        const result = await summarizer.summarize({ messages, agent: p.agentId });
        spent.push({ operation: 'session-summary', by: result.summarizer, usage: result.usage });
        summary = result.summary;
      } catch (error) {
        const reason = `summariser "${summarizer.id}" failed: ${error instanceof Error ? error.message : String(error)}`;
        return {
          stored: null,
          skipped: `${reason}; the transcript is kept`,
          distillation,
          spent,
          usage: addUsage(spent),
        };
      }
      if (!summary || summary.trim().length === 0) {
        return {
          stored: null,
          skipped: `summariser "${summarizer.id}" returned an empty summary`,
          distillation,
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
    return { stored, distillation, spent, usage: addUsage(spent) };
  }
}
