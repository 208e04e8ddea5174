/** Curation: read, edit, move, delete, rate, version history, learning injection and expiry (docs/writing.md). */
import { chunkContent, reassemble } from '../../domain/chunking.js';
import { contentHash } from '../../domain/ids.js';
import { checkKey } from '../../domain/keys.js';
import { expiryAfterMove } from '../../domain/lifecycle.js';
import { checkName } from '../../domain/names.js';
import { mayInjectLearning } from '../../domain/permissions.js';
import { usefulnessFactor } from '../../domain/ranking.js';
import { MemError } from '../../errors.js';
import { NO_USAGE } from '../../ports/summarizer.js';
import { injectLearningInput, memoryEditInput, memoryRateInput, memoryRefInput, parseInput } from '../../schemas.js';
import type { MemoryVersion, Principal } from '../../types.js';
import { scanFields } from '../secret-scan.js';
import type { KnowledgeContext } from './context.js';
import { store } from './ingest.js';
import { defaultName, INJECTED_BY_TAG, injectedBy, keyTaken, occurrences, refOf, toDocument } from './records.js';
import type { EditResult, MemoryDocument, RateResult, StoreResult } from './types.js';

/** memory-get: the whole document; counts one access. */
export async function get(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<MemoryDocument> {
  ctx.checkPrincipal(p);
  const ref = parseInput(memoryRefInput, 'memory-get', raw);
  const chunks = await ctx.resolve(p, ref);
  const at = ctx.now().toISOString();
  await ctx.knowledge.recordAccess(p.space, chunks[0]!.docId, at);
  const doc = toDocument(chunks);
  return { ...doc, accessCount: doc.accessCount + 1, lastAccessedAt: at };
}

/** Read a document without counting an access (inspection, export). */
export async function peek(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<MemoryDocument> {
  ctx.checkPrincipal(p);
  const ref = parseInput(memoryRefInput, 'memory-get', raw);
  return toDocument(await ctx.resolve(p, ref));
}

/** memory-edit: replace, exact passage change, or a pure move with `newKey`. */
export async function edit(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<EditResult> {
  ctx.checkPrincipal(p);
  const input = parseInput(memoryEditInput, 'memory-edit', raw);
  // The intent is shown to every reader in the history: guarded like the content.
  ctx.guardLabels(p.space, { 'edit intent': input.intent, 'new key': input.newKey });
  const ref = refOf(input, 'memory-edit');
  const chunks = await ctx.resolve(p, ref);
  const first = chunks[0]!;
  ctx.assertMayChange(p, first);
  const hasContent = input.content !== undefined;
  const hasExact = input.oldText !== undefined;
  const mode = input.mode ?? (hasExact ? 'exact' : hasContent ? 'replace' : undefined);
  if (mode === 'replace' && !hasContent) {
    throw new MemError(
      'INVALID_INPUT',
      'Invalid input for memory-edit: mode "replace" needs content (the full new text).',
    );
  }
  if (mode === 'exact' && (!hasExact || input.newText === undefined)) {
    throw new MemError(
      'INVALID_INPUT',
      'Invalid input for memory-edit: mode "exact" needs oldText (a passage that occurs once) and newText.',
    );
  }
  if (hasContent && hasExact) {
    throw new MemError(
      'INVALID_INPUT',
      'Invalid input for memory-edit: give either content (replace) or oldText + newText (exact), not both.',
    );
  }
  if (mode === undefined && input.newKey === undefined) {
    throw new MemError(
      'INVALID_INPUT',
      'Invalid input for memory-edit: nothing to change. Give content, oldText + newText, or newKey.',
    );
  }
  const oldContent = reassemble(chunks);
  const now = ctx.now();
  const version: MemoryVersion = {
    docId: first.docId,
    space: p.space,
    version: first.version,
    oldContent,
    oldKey: first.key,
    intent: input.intent,
    agentId: p.agentId,
    at: now.toISOString(),
  };
  let newKey = first.key;
  if (input.newKey !== undefined && input.newKey !== first.key) {
    checkKey(input.newKey, p.role);
    const taken = await ctx.knowledge.findDocIdByKey(p.space, first.scope, first.agentId, input.newKey);
    if (taken && taken !== first.docId && (await ctx.liveDocument(p.space, taken)))
      throw keyTaken(input.newKey, first.scope, taken);
    newKey = input.newKey;
  }
  if (mode === undefined) {
    await scanFields(ctx.secretScanner, { 'edit intent': input.intent, 'new key': input.newKey });
    const expiresAt = expiryAfterMove(newKey);
    await ctx.knowledge.moveDocument(
      p.space,
      first.docId,
      { newKey, updatedAt: now.toISOString(), ...(expiresAt === null ? { expiresAt: null } : {}) },
      version,
      first.version,
    );
    return {
      id: first.docId,
      key: newKey,
      version: first.version + 1,
      chunkCount: chunks.length,
      action: 'moved',
      usage: { ...NO_USAGE },
    };
  }
  // Content change: the current key must be writable by this principal too (no side door into lead-only roots).
  checkKey(first.key, p.role);
  let content: string;
  if (mode === 'exact') {
    const count = occurrences(oldContent, input.oldText!);
    if (count !== 1) {
      throw new MemError(
        'INVALID_INPUT',
        count === 0
          ? `oldText was not found in memory ${first.docId}. Copy the passage exactly as it stands (read it with memory-get), including spaces and line breaks.`
          : `oldText occurs ${count} times in memory ${first.docId}. Include more of the surrounding text so that it occurs exactly once.`,
        { details: { occurrences: count } },
      );
    }
    content = oldContent.replace(input.oldText!, () => input.newText!);
  } else {
    content = input.content!;
  }
  if (content.trim().length === 0) {
    throw new MemError(
      'INVALID_INPUT',
      `The edit would leave memory ${first.docId} empty. To remove it, use memory-delete.`,
    );
  }
  content = ctx.checkContent(p.space, content);
  await scanFields(ctx.secretScanner, { content, 'edit intent': input.intent, 'new key': input.newKey });
  const pieces = chunkContent(content, ctx.options.chunking);
  const embedded = await ctx.embed(pieces.map((c) => c.content));
  const moveExpiry = newKey !== first.key ? expiryAfterMove(newKey) : undefined;
  const next = ctx.buildChunks({
    p,
    docId: first.docId,
    scope: first.scope,
    agentId: first.agentId,
    key: newKey,
    name: first.name,
    content,
    source: first.source,
    tags: first.tags,
    vectors: embedded?.vectors ?? null,
    pieces,
    hash: contentHash(content),
    createdAt: first.createdAt,
    updatedAt: now.toISOString(),
    expiresAt: moveExpiry === null ? null : first.expiresAt,
    carry: first,
  });
  await ctx.withVectors(() => ctx.knowledge.replaceDocument(p.space, first.docId, next, version, first.version));
  return {
    id: first.docId,
    key: newKey,
    version: first.version + 1,
    chunkCount: next.length,
    action: newKey !== first.key ? 'replaced-and-moved' : 'replaced',
    usage: embedded?.usage ?? { ...NO_USAGE },
  };
}

/** memory-delete: the document with all its chunks. */
export async function deleteMemory(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
): Promise<{ id: string; deletedChunks: number }> {
  ctx.checkPrincipal(p);
  const ref = parseInput(memoryRefInput, 'memory-delete', raw);
  const chunks = await ctx.resolve(p, ref);
  const first = chunks[0]!;
  ctx.assertMayChange(p, first);
  const deletedChunks = await ctx.knowledge.deleteDocument(p.space, first.docId);
  return { id: first.docId, deletedChunks };
}

/**
 * memory_rate: once per memory per task; at most one counted vote per (memory, rater), the latest. The author's
 * votes on its own memory (the owner, or the lead who injected it) are recorded but do not move it: `counted` says so.
 */
export async function rate(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<RateResult> {
  ctx.checkPrincipal(p);
  const input = parseInput(memoryRateInput, 'memory_rate', raw);
  ctx.guardLabels(p.space, { 'rating note': input.note, 'task id': input.taskId });
  await scanFields(ctx.secretScanner, { 'rating note': input.note, 'task id': input.taskId });
  const chunks = await ctx.resolve(p, { id: input.id });
  const first = chunks[0]!;
  const author = injectedBy(first.tags) ?? first.agentId;
  const counted = author !== p.agentId;
  const { replaced } = await ctx.knowledge.addRating({
    docId: first.docId,
    space: p.space,
    taskId: input.taskId,
    useful: input.useful,
    note: input.note ?? null,
    agentId: p.agentId,
    at: ctx.now().toISOString(),
    counted,
  });
  const after = (await ctx.knowledge.getDocument(p.space, first.docId))[0] ?? first;
  return {
    id: first.docId,
    alpha: after.alpha,
    beta: after.beta,
    usefulness: usefulnessFactor(after.alpha, after.beta),
    counted,
    replaced,
    ...(counted
      ? replaced > 0
        ? { note: 'This vote replaced your earlier vote on this memory: one vote per rater counts, the latest.' }
        : {}
      : { note: 'Recorded, not counted: votes on your own memory do not change its usefulness.' }),
  };
}

/** inject-learning: a lead teaches an agent; stored at swarm scope, source manual, tagged with the category. */
export async function injectLearning(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<StoreResult> {
  ctx.checkPrincipal(p);
  const input = parseInput(injectLearningInput, 'inject-learning', raw);
  mayInjectLearning(p);
  checkName(input.agentId, 'agent');
  return store(
    ctx,
    p,
    {
      content: input.learning,
      name: `${input.category}: ${defaultName(input.learning, 60)}`,
      scope: 'swarm',
      source: 'manual',
      tags: [input.category, `${INJECTED_BY_TAG}${p.agentId}`],
    },
    { agentId: input.agentId, injectedBy: p.agentId },
  );
}

/** Version history of a document, oldest first. */
export async function versions(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<MemoryVersion[]> {
  ctx.checkPrincipal(p);
  const ref = parseInput(memoryRefInput, 'memory-versions', raw);
  const chunks = await ctx.resolve(p, ref);
  return ctx.knowledge.listVersions(p.space, chunks[0]!.docId);
}

/** gc: delete expired memories of a space (or of every space). `/longterm` never expires. */
export async function gc(
  ctx: KnowledgeContext,
  p: Principal,
  options: { allSpaces?: boolean } = {},
): Promise<{ deletedChunks: number }> {
  ctx.checkPrincipal(p);
  const deletedChunks = await ctx.knowledge.deleteExpired(
    ctx.now().toISOString(),
    options.allSpaces ? undefined : p.space,
  );
  return { deletedChunks };
}
