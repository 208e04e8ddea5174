/**
 * The runner's distillation (docs/runner.md, docs/formation.md): the turns a runner writes are distilled into formed
 * memories in the background, a batch at a time, so no reply waits for it; what a compaction is about to archive is
 * distilled first, and what is left at a session's end, so no message leaves the transcript undistilled.
 *
 * One distillation runs at a time per agent and user (the next waits for it); each reads the transcript from where
 * the last stopped (the cursor `distill` keeps in the session-state store), so a run that never happened — a process
 * that exited first — is caught up by the next, in any process.
 */
import type { Logger } from '../../ports/logger.js';
import { NO_USAGE, sumUsage } from '../../ports/summarizer.js';
import type { TurnMessage } from '../../ports/transcript-store.js';
import type { Stack } from '../../stack.js';
import type { Principal } from '../../types.js';
import type { Conversation } from '../conversation/conversation.js';
import type { CompressionOutcome, ContextInput } from '../conversation/options.js';
import type * as R from './types.js';

/** Tokens of new messages that start a background distillation, when the runner's options set none. */
export const DEFAULT_DISTILL_TOKENS = 2_000;
/** Finished runs held for the next report, per agent and user; older ones are only counted. */
const MAX_HELD_RUNS = 20;

interface Lane {
  principal: Principal;
  /** Tokens written since the last distillation started. */
  pendingTokens: number;
  running: Promise<R.DistillationRun> | null;
  /** A batch filled up while a run was going: run again when it ends. */
  again: boolean;
  /** Runs finished since the last report. */
  finished: R.DistillationRun[];
}

/** Counts of nothing. */
const noCounts = (): R.DistillationCounts => ({
  messages: 0,
  add: 0,
  update: 0,
  invalidate: 0,
  noop: 0,
  queued: 0,
  failures: 0,
  usage: { ...NO_USAGE },
});

/** Totals with nothing counted. */
export function noTotals(): R.DistillationTotals {
  return { runs: 0, failedRuns: 0, ...noCounts() };
}

/** The sum of several runners' totals. */
export function sumTotals(all: readonly R.DistillationTotals[]): R.DistillationTotals {
  const out = noTotals();
  for (const t of all) {
    out.runs += t.runs;
    out.failedRuns += t.failedRuns;
    out.messages += t.messages;
    out.add += t.add;
    out.update += t.update;
    out.invalidate += t.invalidate;
    out.noop += t.noop;
    out.queued += t.queued;
    out.failures += t.failures;
    out.usage = sumUsage([out.usage, t.usage]);
  }
  return out;
}

export class BackgroundDistiller {
  private readonly lanes = new Map<string, Lane>();
  private totals: R.DistillationTotals = noTotals();

  constructor(
    private readonly stack: Stack,
    readonly batchTokens: number,
    private readonly logger: Logger,
  ) {}

  private key(p: Principal): string {
    return `${p.space}\u0000${p.agentId}\u0000${p.userId ?? ''}`;
  }

  private lane(p: Principal): Lane {
    const key = this.key(p);
    let lane = this.lanes.get(key);
    if (!lane) {
      // First sight of this agent and user in this process: catch up on what an earlier process left undistilled.
      lane = { principal: p, pendingTokens: 0, running: null, again: false, finished: [] };
      this.lanes.set(key, lane);
      this.start(lane, 'catch-up');
    }
    return lane;
  }

  /** Write messages through `conversation` for `p` and count their tokens toward the next background run. */
  async write(p: Principal, conversation: Conversation, messages: readonly TurnMessage[]) {
    if (messages.length === 0) return [];
    await conversation.load();
    const before = conversation.tokens();
    const written = await conversation.addMany(messages);
    this.wrote(p, conversation.tokens() - before);
    return written;
  }

  /**
   * Compress `conversation` when due, after distilling what the compaction would archive, so that no message leaves
   * the transcript undistilled. A distillation that fails postpones the compaction (null): a later turn tries again.
   */
  async compactIfDue(
    p: Principal,
    conversation: Conversation,
    prompt: ContextInput = {},
  ): Promise<CompressionOutcome | null> {
    if (conversation.needsCompression(prompt)) {
      const run = await this.drain(p, 'compaction');
      if (run.error) return null;
    }
    return conversation.maybeCompress(prompt);
  }

  /** `tokens` of new transcript messages were written for `p`: start a background run once a batch is full. */
  wrote(p: Principal, tokens: number): void {
    const lane = this.lane(p);
    lane.pendingTokens += Math.max(0, tokens);
    if (lane.pendingTokens < this.batchTokens) return;
    if (lane.running) lane.again = true;
    else this.start(lane, 'batch');
  }

  private start(lane: Lane, trigger: R.DistillationTrigger): Promise<R.DistillationRun> {
    lane.pendingTokens = 0;
    lane.again = false;
    const run = this.runOnce(lane, trigger).then((done) => {
      lane.running = null;
      if (lane.again) this.start(lane, 'batch');
      return done;
    });
    lane.running = run;
    return run;
  }

  /** One distillation of the transcript since the cursor; never throws (a failure is a run with `error`). */
  private async runOnce(lane: Lane, trigger: R.DistillationTrigger): Promise<R.DistillationRun> {
    const at = this.stack.clock.now().toISOString();
    let run: R.DistillationRun;
    try {
      const report = await this.stack.distill(lane.principal, {});
      // In review mode the decisions are only planned: what was kept is counted as queued.
      const count = (d: string) => (report.queued ? 0 : report.decisions.filter((x) => x.decision === d).length);
      run = {
        trigger,
        at,
        messages: report.messages,
        skipped: report.skipped,
        add: count('add'),
        update: count('update'),
        invalidate: count('invalidate'),
        noop: count('noop'),
        queued: report.queued?.length ?? 0,
        failures: report.failures.length,
        extractor: report.extractor,
        model: report.model,
        usage: report.usage,
        error: null,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      run = {
        ...noCounts(),
        trigger,
        at,
        skipped: 0,
        extractor: this.stack.knowledge.extractor.id,
        model: null,
        error: message,
      };
      this.logger.warn('distillation failed; the transcript is kept and the next run reads it again', {
        space: lane.principal.space,
        agentId: lane.principal.agentId,
        trigger,
        error: message,
      });
    }
    this.count(run);
    lane.finished.push(run);
    if (lane.finished.length > MAX_HELD_RUNS) lane.finished.splice(0, lane.finished.length - MAX_HELD_RUNS);
    return run;
  }

  private count(run: R.DistillationRun): void {
    const { trigger: _t, at: _a, skipped: _s, extractor: _e, model: _m, error, ...counts } = run;
    this.totals = sumTotals([this.totals, { ...counts, runs: 1, failedRuns: error ? 1 : 0 }]);
  }

  /**
   * Distil now what `p`'s transcript holds undistilled (after the run in flight, if any), and wait for it: before a
   * compaction archives messages, and at a session's end.
   */
  async drain(p: Principal, trigger: R.DistillationTrigger): Promise<R.DistillationRun> {
    const lane = this.lane(p);
    while (lane.running) await lane.running;
    return this.start(lane, trigger);
  }

  /** Wait until no distillation of this runner is running (every background run ended). */
  async settle(): Promise<void> {
    for (;;) {
      const running = [...this.lanes.values()].map((l) => l.running).filter((r) => r !== null);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** The report part for `p` (its finished runs since the last report are handed over: each is reported once). */
  take(p: Principal): R.DistillationStatus {
    const lane = this.lane(p);
    const finished = lane.finished.splice(0);
    return {
      batchTokens: this.batchTokens,
      pendingTokens: lane.pendingTokens,
      running: lane.running !== null,
      finished,
    };
  }

  /** Counts over every run of this runner since it was made. */
  stats(): R.DistillationTotals {
    return { ...this.totals, usage: { ...this.totals.usage } };
  }

  /** Forget what is held for an agent (its lanes); a run in flight ends on its own. */
  release(space: string, agentId: string): number {
    let n = 0;
    for (const [key, lane] of this.lanes) {
      if (lane.principal.space === space && lane.principal.agentId === agentId) n += this.lanes.delete(key) ? 1 : 0;
    }
    return n;
  }
}
