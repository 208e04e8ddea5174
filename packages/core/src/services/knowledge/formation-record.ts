/** A new formed memory as a record (docs/formation.md): the statement as its content, the claim as its name and key. */
import { claimEntityNames } from '../../domain/graph-formation.js';
import { contentHash, newId } from '../../domain/ids.js';
import type { ProposedMemory } from '../../ports/statement-extractor.js';
import type { MemoryRecord, Principal, Scope } from '../../types.js';
import type { KnowledgeContext } from './context.js';
import type { DecideState } from './formation.js';

/** The key prefix of the formed memories of an owner, and of one subject and attribute among them. */
export function formedKeyPrefix(scope: Scope, claim?: { subject: string; attribute: string }): string {
  const base = `/${scope}/distilled/`;
  return claim ? `${base}${slug(claim.subject)}/${slug(claim.attribute)}/` : base;
}

function slug(s: string): string {
  const out = s
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  return out === '' ? 'x' : out;
}

/** The claim's `entities`: the graph's names of what the memory is about, when it names any. */
function entitiesOf(userId: string | null, proposal: ProposedMemory): { entities?: string[] } {
  const names = claimEntityNames(userId, proposal);
  return names ? { entities: names } : {};
}

/** A date (`YYYY-MM-DD`, midnight UTC) or a time. */
export const dateOf = (t: string) => new Date(t.length === 10 ? `${t}T00:00:00Z` : t);

/** An extractor's date or time (checked by `isMoment` first) as the stores keep times (UTC, milliseconds). */
export function moment(t: string): string {
  return dateOf(t).toISOString();
}

/** The record of a new formed memory: the statement as content, the claim as its name and key, its world time. */
export async function formedRecord(
  ctx: KnowledgeContext,
  p: Principal,
  s: Pick<DecideState, 'owner' | 'spent' | 'now'>,
  proposal: ProposedMemory,
  text: string,
  validFrom: string,
): Promise<MemoryRecord> {
  const docId = newId(ctx.now());
  // One chunk: a statement is a sentence or two (the extractors cap it), never split.
  const pieces = [{ content: text, bodyStart: 0 }];
  const embedded = await ctx.embed([text]);
  if (embedded) s.spent.push(embedded.usage);
  const [chunk] = ctx.buildChunks({
    p,
    docId,
    scope: s.owner.scope,
    agentId: p.agentId,
    key: `${formedKeyPrefix(s.owner.scope, proposal)}${docId.toLowerCase()}`,
    name: `${proposal.subject} ${proposal.attribute}`,
    content: text,
    source: 'distilled',
    tags: [`kind:${proposal.kind}`],
    vectors: embedded?.vectors ?? null,
    pieces,
    hash: contentHash(text),
    createdAt: s.now,
    updatedAt: s.now,
    expiresAt: null,
    validity: {
      validFrom,
      validTo: proposal.validTo === null ? null : moment(proposal.validTo),
      invalidatedAt: null,
      supersedes: null,
      supersededBy: null,
      userId: s.owner.userId,
      claim: {
        kind: proposal.kind,
        subject: proposal.subject,
        attribute: proposal.attribute,
        single: proposal.single,
        value: proposal.value,
        stance: proposal.stance ?? 'for',
        ...entitiesOf(p.userId ?? null, proposal),
      },
    },
  });
  return chunk!;
}
