/** The parent side of the crash harness: the crash campaign (kill a writer, reopen, check, repeat). */
import { type ChildProgram, type ChildRun, seededRandom, type WarmChild, warmChild, within } from '../processes.js';
import {
  applyKnowledge,
  applyNotebook,
  checkKnowledge,
  checkNotebook,
  checkTranscript,
  type DocState,
  readNotebook,
  type Unresolved,
} from './checks.js';
import {
  type CrashWorkload,
  fail,
  type HarnessMessage,
  type HarnessOp,
  type HarnessPorts,
  type HarnessSettings,
  type HarnessTarget,
  HarnessViolation,
  type OpenHarnessPorts,
} from './shared.js';

export interface CrashCampaignOptions {
  program: ChildProgram;
  open: OpenHarnessPorts;
  target: HarnessTarget;
  workload: CrashWorkload;
  kills: number;
  /**
   * Longest random delay before the SIGKILL (ms). Default 400. It is counted, kill after kill, from the handing over
   * of the settings (one kill in seven: it can land while the store opens, or migrates), from the writer's `ready`
   * (one in seven: it can land in the first operation) or from its first acknowledged operation (the rest).
   */
  maxDelayMs?: number;
  seed?: number;
  space?: string;
  agent?: string;
  /** More checks on the freshly reopened store after each kill (e.g. PRAGMA integrity_check). */
  inspect?: (ports: HarnessPorts) => Promise<void>;
  /** Writers killed side by side, each on its own space and agent (so a kill lands while others write). Default 2. */
  lanes?: number;
  /** Called after each kill has been checked. */
  progress?: (done: number, report: CrashReport) => void;
  /** Longest a writer may take to die once killed, or to start (ms). Default 60000. */
  childTimeoutMs?: number;
}

export interface CrashReport {
  workload: CrashWorkload;
  kills: number;
  /** Acknowledged operations, all found after the crashes. */
  acked: number;
  /** The operation in flight at the kill: found committed, or not (both are allowed). */
  inFlightCommitted: number;
  inFlightLost: number;
  /** Kills that landed before the writer had opened its store. */
  beforeReady: number;
  ms: number;
}

/**
 * Kill a writer `kills` times at random points and check the store after each kill. Throws a HarnessViolation
 * (with the seed and the kill number) at the first broken promise.
 */
export async function crashCampaign(o: CrashCampaignOptions): Promise<CrashReport> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const lanes = Math.max(1, Math.min(o.lanes ?? 2, o.kills));
  const report: CrashReport = {
    workload: o.workload,
    kills: 0,
    acked: 0,
    inFlightCommitted: 0,
    inFlightLost: 0,
    beforeReady: 0,
    ms: 0,
  };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: lanes }, (_, l) =>
      crashLane(o, l, Math.floor(o.kills / lanes) + (l < o.kills % lanes ? 1 : 0), seed, report, started),
    ),
  );
  report.ms = Date.now() - started;
  return report;
}

/** Kills checked so far in a campaign (its lanes run side by side). */
const checkedKills = new WeakMap<CrashReport, number>();

/** One writer at a time on its own space and agent: kill, reopen, check, repeat. */
async function crashLane(
  o: CrashCampaignOptions,
  lane: number,
  kills: number,
  seed: number,
  report: CrashReport,
  started: number,
): Promise<void> {
  const rnd = seededRandom(seed + lane);
  const space = `${o.space ?? 'crash'}-${lane}`;
  const agent = `${o.agent ?? 'writer'}-${lane}`;
  const maxDelay = o.maxDelayMs ?? 400;
  const timeout = o.childTimeoutMs ?? 60_000;
  const knowledge = new Map<string, DocState>();
  const unresolved: Unresolved = [];
  const transcript = { adds: [] as string[], summaries: [] as string[] };
  let files: Record<string, string[]> = {};

  // The next writer loads its code while the current one runs and is checked.
  let next: WarmChild<HarnessMessage> = warmChild(o.program);
  try {
    for (let k = 0; k < kills; k++) await killAndCheck(k);
  } finally {
    await next.cancel();
  }

  async function killAndCheck(k: number): Promise<void> {
    const settings: HarnessSettings = {
      workload: o.workload,
      target: o.target,
      tag: `l${lane}r${k}`,
      seed: Math.floor(rnd() * 2 ** 31),
      space,
      agent,
      ...(o.workload === 'knowledge'
        ? { docs: [...knowledge.entries()].slice(-30).map(([id, d]) => ({ id, key: d.key })) }
        : {}),
      ...(o.workload === 'notebook' ? { files } : {}),
    };
    const from = k % 7 === 0 ? 'start' : k % 7 === 1 ? 'ready' : 'ack';
    const delay = Math.floor(rnd() * maxDelay);
    let timer: NodeJS.Timeout | undefined;
    let ready = false;
    const kill = (run: ChildRun<HarnessMessage>) => {
      timer = setTimeout(() => run.child.kill('SIGKILL'), delay);
    };
    const warm = next;
    next = warmChild(o.program);
    const run = warm.start(settings, (m, r) => {
      if ('ready' in m) {
        ready = true;
        if (from === 'ready') kill(r);
      }
      if ('ack' in m && from === 'ack' && timer === undefined) kill(r);
    });
    if (from === 'start') kill(run);
    const exit = await within(run.closed, timeout, `writer ${settings.tag} to be killed`).finally(() =>
      clearTimeout(timer),
    );
    const where = `(${o.workload}, lane ${lane}, kill ${k + 1} of ${kills}, seed ${seed})`;
    if (exit.signal !== 'SIGKILL')
      fail(
        `writer ${settings.tag} ended by itself ${JSON.stringify(exit)} ${where}: ${run.stderr.join('').slice(-2000)}`,
      );
    if (!ready) report.beforeReady++;
    report.kills++;

    // Apply the acknowledged operations; the last `begin` without its `ack` is the one in flight.
    let pending: HarnessOp | null = null;
    for (const m of run.messages) {
      if ('begin' in m) pending = m.begin;
      else if ('ack' in m) {
        pending = null;
        report.acked++;
        if (o.workload === 'knowledge') applyKnowledge(knowledge, m.ack);
        else if (o.workload === 'notebook') files = applyNotebook(files, m.ack);
        else if (m.ack.op === 'add') transcript.adds.push(m.ack.content);
        else if (m.ack.op === 'compact') transcript.summaries.push(m.ack.summary);
      }
    }

    // "Restart": a fresh instance must open the store and find every acknowledged write.
    const ports = await o
      .open(o.target, o.workload)
      .catch((error: unknown) => fail(`the store does not open after the kill ${where}: ${String(error)}`));
    try {
      let inFlight: 'committed' | 'lost' | null = null;
      if (o.workload === 'knowledge')
        inFlight = await checkKnowledge(ports, space, agent, knowledge, pending, unresolved);
      else if (o.workload === 'transcript') inFlight = await checkTranscript(ports, space, agent, transcript, pending);
      else {
        const found = await readNotebook(ports, space, agent);
        inFlight = checkNotebook(found, files, pending, unresolved);
        files = found;
      }
      if (inFlight === 'committed') report.inFlightCommitted++;
      if (inFlight === 'lost') report.inFlightLost++;
      await o.inspect?.(ports);
    } catch (error) {
      if (error instanceof HarnessViolation) error.message += ` ${where}`;
      throw error;
    } finally {
      await ports.close();
    }
    report.ms = Date.now() - started;
    const checked = (checkedKills.get(report) ?? 0) + 1;
    checkedKills.set(report, checked);
    o.progress?.(checked, report);
  }
}
