/**
 * Memory that forms itself (docs/formation.md): messages → proposals (the extractor) → one decision each against the
 * current memories of the same subject and attribute (`decideFormation`) → one atomic write (`KnowledgeStore.form`):
 * new memories, the memories they close, and a decision-log line per decision. Nothing is deleted; a repeated fact
 * only adds evidence; a proposal carrying a secret, or refused by the personal-data policy, is reported, not stored.
 */
import { decideFormation, type FormedMemory } from '../../domain/formation.js';
import { contentHash, newId } from '../../domain/ids.js';
import { redactSecrets } from '../../domain/secrets.js';
import { MemError } from '../../errors.js';
import type { DocumentClose, FormationEntry, FormationWrite, SearchFilter } from '../../ports/knowledge-store.js';
import type {
  DistillMessage,
  ExtractionFailure,
  ProposedEntity,
  ProposedMemory,
  ProposedRelation,
  StatementExtractor,
} from '../../ports/statement-extractor.js';
import { NO_USAGE, sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { parseInput } from '../../schemas.js';
import { distillInput } from '../../schemas-formation.js';
import type { MemoryRecord, Principal, Scope } from '../../types.js';
import { scanFields } from '../secret-scan.js';
import type { KnowledgeContext } from './context.js';
import { dateOf, formedKeyPrefix, formedRecord, moment } from './formation-record.js';

export { formedKeyPrefix } from './formation-record.js';

import { rankedSearch } from './search.js';

/** What one distillation decided about one proposal. */
export interface DistillDecision {
  decision: FormationEntry['decision'];
  /** The memory made (add, update), closed (invalidate) or found known (noop). */
  memoryId: string;
  /** The memory an update superseded, or null. */
  previousId: string | null;
  text: string;
  subject: string;
  attribute: string;
  value: string;
  /** The attribute holds one value at a time. */
  single: boolean;
  /** What the extractor named (docs/graph.md): the entities and edges the graph gets. */
  entities?: ProposedEntity[];
  relations?: ProposedRelation[];
  evidence: string[];
  validFrom: string | null;
  validTo: string | null;
}

export interface DistillReport {
  /** Messages handed to the extractor. */
  messages: number;
  /** Messages not read: tool results and untrusted content, unless allowed. */
  skipped: number;
  decisions: DistillDecision[];
  /** What could not become a memory, with why (a secret, a refused proposal, the extractor's own failures). */
  failures: ExtractionFailure[];
  extractor: string;
  model: string | null;
  promptVersion: string;
  usage: TokenUsage;
  /** True when nothing was written (`dryRun`, or `review`: the proposals wait for approval). */
  dryRun: boolean;
  /** Review mode: the proposals that would change something, with what each would do now, kept for approval. */
  pending?: PendingProposal[];
}

/** A proposal review mode keeps instead of applying: what it says, and what it would do if applied now. */
export interface PendingProposal {
  proposal: ProposedMemory;
  /** `add`, `update`, `invalidate` (noops change nothing and are not kept). */
  decision: FormationEntry['decision'];
  /** The memory it would supersede or close (null for add). */
  target: string | null;
  text: string;
  /** When each message it rests on was said. */
  said: { id: string; at: string }[];
  /** The current memories it was compared with. */
  related: string[];
  extractor: ExtractorMeta;
}

/** The extractor as the decision log names it. */
export interface ExtractorMeta {
  id: string;
  model: string | null;
  promptVersion: string;
}

/** A message as a distillation reads it: the given id, or one derived from who said what when. */
export function distillMessageId(agentId: string, m: { role: string; content: string; at: string }): string {
  return `msg_${contentHash(JSON.stringify([agentId, m.role, m.at, m.content])).slice(0, 24)}`;
}

/** Where a principal's formed memories live: about its user across the space's agents, else the agent's own. */
function ownerOf(p: Principal): { scope: Scope; userId: string | null } {
  return p.userId !== undefined ? { scope: 'swarm', userId: p.userId } : { scope: 'agent', userId: null };
}

/** A formed memory in the form formation compares, or null for one written on purpose. */
function formedOf(r: Pick<MemoryRecord, 'docId' | 'content' | 'claim'>): FormedMemory | null {
  if (!r.claim) return null;
  const { subject, attribute, single, value, stance } = r.claim;
  return { id: r.docId, subject, attribute, single, value, stance, statement: r.content };
}

/** The world time a proposal starts to hold: what it says, else when its latest evidence was said. */
function startOf(proposal: ProposedMemory, said: ReadonlyMap<string, string>, now: string): string {
  if (proposal.validFrom !== null) return moment(proposal.validFrom);
  const times = proposal.evidence.map((id) => said.get(id)).filter((t): t is string => t !== undefined);
  return times.length > 0 ? times.sort().at(-1)! : now;
}

const isMoment = (t: string) => !Number.isNaN(dateOf(t).getTime());

/** The state one distillation builds up: what it inserts and closes, seen by its later proposals. */
class Working {
  readonly inserts = new Map<string, MemoryRecord>();
  readonly closes = new Map<string, DocumentClose>();
  readonly log: FormationEntry[] = [];
  readonly decisions: DistillDecision[] = [];
  /** Review mode: what each proposal that changes something would do. */
  readonly pending: Omit<PendingProposal, 'extractor'>[] = [];

  /** The current memories of one subject and attribute: those stored minus those closed, plus those made, newest first. */
  current(stored: readonly MemoryRecord[], claim: { subject: string; attribute: string }): MemoryRecord[] {
    const made = [...this.inserts.values()].filter(
      (r) => r.validTo === null && r.claim?.subject === claim.subject && r.claim.attribute === claim.attribute,
    );
    const kept = stored.filter((r) => !this.closes.has(r.docId) && !this.inserts.has(r.docId));
    return [...made, ...kept].sort((a, b) => startTime(b).localeCompare(startTime(a)));
  }

  /** Close a memory: one stored (a close in the write) or one made by this distillation (changed before it lands). */
  close(id: string, close: Omit<DocumentClose, 'docId'>): void {
    const made = this.inserts.get(id);
    if (made) Object.assign(made, close);
    else this.closes.set(id, { docId: id, ...close });
  }
}

const startTime = (r: MemoryRecord) => r.validFrom ?? r.createdAt;

/** The longest statement a formed memory keeps (a fact is a sentence or two). */
const MAX_STATEMENT_CHARS = 1000;

/**
 * Distil messages into memories for `p` (docs/formation.md). Without `dryRun`, one atomic write; a conflict with a
 * distillation that closed the same memory meanwhile is retried once against what is current then.
 */
export async function distill(
  ctx: KnowledgeContext,
  extractor: StatementExtractor,
  p: Principal,
  raw: unknown,
  fallback: { messages?: readonly DistillMessage[] } = {},
): Promise<DistillReport> {
  ctx.checkPrincipal(p);
  const input = parseInput(distillInput, 'distill', raw);
  const now = ctx.now().toISOString();
  const messages: DistillMessage[] = input.messages?.map((m) => {
    const at = m.at ?? now;
    return {
      id: m.id ?? distillMessageId(p.agentId, { ...m, at }),
      role: m.role,
      content: m.content,
      at,
      ...(m.untrusted ? { untrusted: true } : {}),
    };
  }) ?? [...(fallback.messages ?? [])];
  const report = emptyReport(extractor, messages.length, input.dryRun === true);
  // Untrusted content (tool results, fetched pages, anything marked) never reaches an extractor unless allowed:
  // whatever lands in memory steers every later session.
  const readable = messages.filter((m) => input.allowUntrusted === true || (m.role !== 'tool' && m.untrusted !== true));
  report.messages = readable.length;
  report.skipped = messages.length - readable.length;
  messages.splice(0, messages.length, ...readable);
  if (messages.length === 0) return report;
  // Secrets never reach an extractor (nor the model behind one): each message is read with them redacted.
  for (const m of messages) m.content = redactSecrets(m.content);
  const owner = ownerOf(p);
  const base = ctx.viewFilter(p);
  const related = await relatedMemories(ctx, base, owner.scope, messages);
  const extraction = await extractor.extract({
    messages,
    related: related.map((r) => formedOf(r)!),
    allowUntrusted: input.allowUntrusted === true,
  });
  report.failures.push(...extraction.failures);
  const spent: TokenUsage[] = [extraction.usage ?? NO_USAGE];
  const review = input.review ?? ctx.options.distillReview;
  if (review) report.dryRun = true;
  const state = { base, owner, messages, related: related.map((r) => r.docId), now, report, spent };
  await decideAndWrite(ctx, extractor, p, state, extraction.proposals, review);
  report.usage = sumUsage(spent);
  return report;
}

/** A report before anything was decided. */
function emptyReport(extractor: ExtractorMeta, messages: number, dryRun: boolean): DistillReport {
  return {
    messages,
    skipped: 0,
    decisions: [],
    failures: [],
    extractor: extractor.id,
    model: extractor.model,
    promptVersion: extractor.promptVersion,
    usage: { ...NO_USAGE },
    dryRun,
  };
}

/**
 * Apply proposals kept by review mode (`approve`): each is decided again against what is current now — the memory it
 * would have superseded may have changed meanwhile — and written as a distillation writes. Checked as in distill.
 */
export async function formPending(
  ctx: KnowledgeContext,
  p: Principal,
  pending: readonly PendingProposal[],
): Promise<DistillReport> {
  ctx.checkPrincipal(p);
  const now = ctx.now().toISOString();
  const first = pending[0];
  const extractor = first?.extractor ?? { id: 'review', model: null, promptVersion: 'review' };
  const report = emptyReport(extractor, 0, false);
  if (!first) return report;
  const said = new Map(pending.flatMap((x) => x.said).map((m) => [m.id, m]));
  const messages = [...said.values()].map((m) => ({ ...m, role: 'user' as const, content: '' }));
  report.messages = messages.length;
  const related = [...new Set(pending.flatMap((x) => x.related))];
  const spent: TokenUsage[] = [];
  const state = { base: ctx.viewFilter(p), owner: ownerOf(p), messages, related, now, report, spent };
  await decideAndWrite(
    ctx,
    extractor,
    p,
    state,
    pending.map((x) => x.proposal),
    false,
  );
  report.usage = sumUsage(spent);
  return report;
}

/** Decide the proposals and (unless a dry run or review) write them; a conflict is retried once. */
async function decideAndWrite(
  ctx: KnowledgeContext,
  extractor: ExtractorMeta,
  p: Principal,
  state: Omit<DecideState, 'work'>,
  proposals: readonly ProposedMemory[],
  review: boolean,
): Promise<void> {
  const { report } = state;
  const failuresBefore = report.failures.length;
  for (let attempt = 0; ; attempt++) {
    const work = new Working();
    await decideAll(ctx, extractor, p, { ...state, work }, proposals);
    report.decisions = work.decisions;
    if (review) {
      report.pending = work.pending.map((x) => ({ ...x, extractor: { ...extractor } }));
      break;
    }
    if (report.dryRun || (work.inserts.size === 0 && work.closes.size === 0 && work.log.length === 0)) break;
    const write: FormationWrite = {
      insert: [...work.inserts.values()].map((r) => [r]),
      close: [...work.closes.values()],
      log: work.log,
    };
    try {
      await ctx.withVectors(() => ctx.knowledge.form(p.space, write));
      break;
    } catch (error) {
      if (attempt > 0 || !MemError.is(error) || error.code !== 'CONFLICT') throw error;
      report.failures.length = failuresBefore;
    }
  }
}

/** The formed memories of the owner that the messages may be about (shown to the extractor, logged as compared). */
async function relatedMemories(
  ctx: KnowledgeContext,
  base: SearchFilter,
  scope: Scope,
  messages: readonly DistillMessage[],
): Promise<MemoryRecord[]> {
  const text = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n')
    .slice(0, 4000);
  if (text.trim() === '') return [];
  const { results } = await rankedSearch(ctx, text, { ...base, scope, keyPrefix: formedKeyPrefix(scope) }, 10);
  return (
    await ctx.knowledge.getChunks(
      base.space,
      results.map((r) => r.id),
    )
  ).filter((r) => r.claim !== null);
}

export interface DecideState {
  base: SearchFilter;
  owner: { scope: Scope; userId: string | null };
  messages: readonly Pick<DistillMessage, 'id' | 'at'>[];
  /** Ids of the current memories shown to the extractor. */
  related: readonly string[];
  now: string;
  work: Working;
  report: DistillReport;
  /** Tokens the searches and embeddings spent. */
  spent: TokenUsage[];
}

/** Decide every proposal in order into `s.work`. */
async function decideAll(
  ctx: KnowledgeContext,
  extractor: ExtractorMeta,
  p: Principal,
  s: DecideState,
  proposals: readonly ProposedMemory[],
): Promise<void> {
  const said = new Map(s.messages.map((m) => [m.id, m.at]));
  const known = new Map<string, Set<string>>();
  for (const proposal of proposals) {
    const badDate = [proposal.validFrom, proposal.validTo].find((t): t is string => t !== null && !isMoment(t));
    if (badDate !== undefined) {
      s.report.failures.push({
        code: 'bad-date',
        message: `a proposal about ${proposal.attribute} was not stored: the extractor gave "${badDate.slice(0, 40)}", which is no date (give ISO dates such as 2026-05-01)`,
      });
      continue;
    }
    let text: string;
    try {
      if (proposal.statement.length > MAX_STATEMENT_CHARS)
        throw new MemError(
          'TOO_LARGE',
          `the statement has ${proposal.statement.length} characters, over ${MAX_STATEMENT_CHARS}`,
        );
      // A secret in the messages was redacted before the extractor read them: a proposal about it is not kept.
      // (Matched loosely and case-sensitively: a reader may reword the marker, `[REDACTED:kind]`, but not re-case it.)
      if (/REDACTED/.test(`${proposal.value} ${proposal.statement}`))
        throw new MemError('SECRET_DETECTED', 'it would keep a secret the message held (redacted before reading)');
      // The value as said too: the statement rewords it (a token may lose the marks a rule knows it by).
      ctx.checkContent(p.space, proposal.value, 'value');
      await scanFields(ctx.secretScanner, { content: proposal.statement, value: proposal.value });
      text = ctx.checkContent(p.space, proposal.statement);
    } catch (error) {
      if (!MemError.is(error) || error.code === 'STORE_UNAVAILABLE' || error.code === 'INTERNAL') throw error;
      s.report.failures.push({
        code: error.code === 'SECRET_DETECTED' ? 'secret' : 'refused',
        message: `a proposal about ${proposal.attribute} was not stored: ${error.message}`,
      });
      continue;
    }
    const claim = { subject: proposal.subject, attribute: proposal.attribute };
    const prefix = formedKeyPrefix(s.owner.scope, claim);
    const query = `${proposal.subject} ${proposal.attribute.replace(/[.-]/g, ' ')} ${text}`;
    const found = await rankedSearch(ctx, query, { ...s.base, scope: s.owner.scope, keyPrefix: prefix }, 20);
    s.spent.push(found.usage);
    const stored = (
      await ctx.knowledge.getChunks(
        p.space,
        found.results.map((r) => r.id),
      )
    ).filter((r) => r.claim?.subject === claim.subject && r.claim.attribute === claim.attribute);
    const current = s.work.current(stored, claim);
    const decision = decideFormation(
      proposal,
      current.map((r) => formedOf(r)!),
    );
    const at = startOf(proposal, said, s.now);
    const line = (memoryId: string, d: FormationEntry['decision'], previousId: string | null): FormationEntry => ({
      id: newId(ctx.now()),
      space: p.space,
      memoryId,
      decision: d,
      previousId,
      text,
      evidence: [...proposal.evidence],
      extractor: extractor.id,
      model: extractor.model,
      promptVersion: extractor.promptVersion,
      related: [...new Set([...current.map((r) => r.docId), ...s.related])],
      agentId: p.agentId,
      userId: s.owner.userId,
      at: s.now,
    });
    const record = (): Promise<MemoryRecord> => formedRecord(ctx, p, s, proposal, text, at);
    const decided = (d: FormationEntry['decision'], memoryId: string, previousId: string | null) => {
      if (d !== 'noop') {
        const target = d === 'invalidate' ? memoryId : previousId;
        const cites = proposal.evidence.map((id) => ({ id, at: said.get(id) ?? s.now }));
        s.work.pending.push({ proposal, decision: d, target, text, said: cites, related: line('', d, null).related });
      }
      s.work.decisions.push({
        decision: d,
        memoryId,
        previousId,
        text,
        subject: proposal.subject,
        attribute: proposal.attribute,
        value: proposal.value,
        single: proposal.single,
        ...(proposal.entities ? { entities: proposal.entities.map((e) => ({ ...e })) } : {}),
        ...(proposal.relations ? { relations: proposal.relations.map((r) => ({ ...r })) } : {}),
        evidence: [...proposal.evidence],
        validFrom: at,
        validTo: proposal.validTo === null ? null : moment(proposal.validTo),
      });
    };
    if (decision.decision === 'noop') {
      // Evidence grows only by messages not cited yet: distilling the same messages again changes nothing.
      const cited = known.get(decision.known) ?? (await citedEvidence(ctx, p.space, decision.known, s.work));
      known.set(decision.known, cited);
      const fresh = proposal.evidence.filter((id) => !cited.has(id));
      decided('noop', decision.known, null);
      if (fresh.length === 0) continue;
      for (const id of fresh) cited.add(id);
      s.work.log.push({ ...line(decision.known, 'noop', null), evidence: fresh });
      continue;
    }
    if (decision.decision === 'invalidate') {
      const target = current.find((r) => r.docId === decision.closes)!;
      s.work.close(decision.closes, {
        validTo: later(at, startTime(target)),
        invalidatedAt: s.now,
        supersededBy: null,
      });
      s.work.log.push(line(decision.closes, 'invalidate', null));
      decided('invalidate', decision.closes, null);
      continue;
    }
    const made = await record();
    if (decision.decision === 'update') {
      const target = current.find((r) => r.docId === decision.supersedes)!;
      made.supersedes = decision.supersedes;
      s.work.close(decision.supersedes, {
        validTo: later(at, startTime(target)),
        invalidatedAt: s.now,
        supersededBy: made.docId,
      });
    }
    s.work.inserts.set(made.docId, made);
    const previous = decision.decision === 'update' ? decision.supersedes : null;
    s.work.log.push(line(made.docId, decision.decision, previous));
    decided(decision.decision, made.docId, previous);
  }
}

/** The later of two ISO times: a memory never ends before it began (messages given out of order). */
const later = (a: string, b: string) => (a > b ? a : b);

/** The message ids a memory's decision log already cites (a memory made in this distillation: its own). */
async function citedEvidence(ctx: KnowledgeContext, space: string, id: string, work: Working): Promise<Set<string>> {
  const lines = [...(await ctx.knowledge.formationLog(space, [id])), ...work.log.filter((e) => e.memoryId === id)];
  return new Set(lines.flatMap((e) => e.evidence));
}
