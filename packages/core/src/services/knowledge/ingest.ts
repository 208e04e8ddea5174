/** Ingest: store one memory, a batch, or a document indexed by its source path (docs/writing.md). */
import { chunkContent, reassemble } from '../../domain/chunking.js';
import { contentHash, newId } from '../../domain/ids.js';
import { autoKey, checkKey, keyFromSourcePath, LONGTERM_PREFIX } from '../../domain/keys.js';
import { expiryFor } from '../../domain/lifecycle.js';
import { MemError } from '../../errors.js';
import type { HashLookup } from '../../ports/knowledge-store.js';
import { NO_USAGE, sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { type MemoryStoreInput, memoryIndexInput, memoryStoreInput, parseInput } from '../../schemas.js';
import type { MemoryRecord, MemoryVersion, Principal, Scope } from '../../types.js';
import { scanFields } from '../secret-scan.js';
import type { DocumentPlan, KnowledgeContext } from './context.js';
import { defaultName, INJECTED_BY_TAG, itemError, keyTaken } from './records.js';
import type { StoreOverrides, StoreResult } from './types.js';

/**
 * Batch ingest: the content-hash lookups of every valid input in one `findDocIdsByHashes` call (inputs that do not
 * parse are left to `prepareStore`, which reports them). A single store asks the same method for its one lookup.
 */
async function prefetchHashes(
  ctx: KnowledgeContext,
  p: Principal,
  inputs: unknown[],
  overrides: (StoreOverrides | undefined)[],
  batch: PlannedBatch,
): Promise<void> {
  if (inputs.length < 2) return;
  const lookups = new Map<string, HashLookup>();
  for (const [i, raw] of inputs.entries()) {
    let input: MemoryStoreInput;
    try {
      input = parseInput(memoryStoreInput, 'memory-store', raw);
    } catch {
      continue;
    }
    const scope = input.scope ?? 'agent';
    const agentId = overrides[i]?.agentId ?? p.agentId;
    const hash = contentHash(input.content);
    batch.parsed.set(raw, { input, hash });
    lookups.set(JSON.stringify([scope, agentId, hash]), { scope, agentId, contentHash: hash });
  }
  if (lookups.size === 0) return;
  const found = await ctx.knowledge.findDocIdsByHashes(p.space, [...lookups.values()]);
  for (const [i, k] of [...lookups.keys()].entries()) batch.storedByHash.set(k, found[i] ?? null);
}

/**
 * The checks and lookups of a store, before any write: input, secrets, key rules, content-hash dedup (against
 * the store and, in a batch, against earlier items of the batch) and key availability. Returns the deduplicated
 * result, or the new document ready to embed and insert. `batch` holds the new documents planned so far.
 */
async function prepareStore(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
  overrides: StoreOverrides,
  batch: PlannedBatch,
): Promise<{ deduplicated: StoreResult } | { deduplicatedOf: PlannedDocument } | { planned: PlannedDocument }> {
  const pre = batch.parsed.get(raw);
  const input = pre?.input ?? parseInput(memoryStoreInput, 'memory-store', raw);
  const content = ctx.checkContent(p.space, input.content);
  ctx.guardLabels(p.space, { name: input.name, key: input.key, tag: input.tags });
  await scanFields(ctx.secretScanner, { content, name: input.name, key: input.key, tag: input.tags });
  const scope = input.scope ?? 'agent';
  const source = input.source ?? 'manual';
  if (source === 'distilled' && overrides.validity?.claim == null)
    throw new MemError(
      'INVALID_INPUT',
      'source "distilled" is written only by distill (memories formed from a conversation, with their evidence). Store the memory as manual, or run distill on the messages.',
      { details: { field: 'source' } },
    );
  const agentId = overrides.agentId ?? p.agentId;
  const explicitKey = input.key !== undefined || input.name?.startsWith(`${LONGTERM_PREFIX}/`) === true;
  let key = input.key;
  if (key === undefined && input.name?.startsWith(`${LONGTERM_PREFIX}/`)) key = input.name;
  if (key !== undefined) checkKey(key, p.role);
  const tags = [...new Set(input.tags ?? [])];
  const forged = tags.find(
    (t) =>
      t.startsWith(INJECTED_BY_TAG) &&
      (overrides.injectedBy === undefined || t !== `${INJECTED_BY_TAG}${overrides.injectedBy}`),
  );
  if (forged !== undefined) {
    throw new MemError(
      'INVALID_INPUT',
      `The tag "${forged}" is reserved: "${INJECTED_BY_TAG}" records the lead who injected a learning and is written only by inject-learning. Remove the tag (or, as a lead, use inject-learning).`,
      { details: { field: 'tags', rule: 'reserved-tag' } },
    );
  }
  const hash = content === input.content ? (pre?.hash ?? contentHash(content)) : contentHash(content);
  const hashKey = JSON.stringify([scope, agentId, hash]);
  const known = batch.storedByHash.get(hashKey);
  const stored =
    known !== undefined
      ? known
      : ((await ctx.knowledge.findDocIdsByHashes(p.space, [{ scope, agentId, contentHash: hash }]))[0] ?? null);
  const existing = await ctx.liveDocument(p.space, stored);
  if (existing) return { deduplicated: resultOf(existing, true, { ...NO_USAGE }) };
  const twin = batch.byHash.get(hashKey);
  if (twin) return { deduplicatedOf: twin };
  const now = ctx.now();
  const docId = overrides.docId ?? newId(now);
  key ??= autoKey(scope, source, docId);
  const ownerKey = JSON.stringify([scope, agentId, key]);
  if (explicitKey) {
    const taken = await ctx.liveDocument(p.space, await ctx.knowledge.findDocIdByKey(p.space, scope, agentId, key));
    if (taken) throw keyTaken(key, scope, taken[0]!.docId);
    const claimed = batch.byKey.get(ownerKey);
    if (claimed) throw keyTaken(key, scope, claimed.docId);
  }
  const createdAt = overrides.createdAt ?? now.toISOString();
  const planned: PlannedDocument = {
    docId,
    scope,
    agentId,
    key,
    name: input.name ?? defaultName(content),
    content,
    source,
    tags,
    pieces: chunkContent(content, ctx.options.chunking),
    hash,
    createdAt,
    updatedAt: now.toISOString(),
    expiresAt: expiryFor(source, key, new Date(createdAt), ctx.options.tiers),
    validity: overrides.validity,
  };
  batch.byHash.set(hashKey, planned);
  batch.byKey.set(ownerKey, planned);
  return { planned };
}

/** The chunks of planned documents, with their vectors from one embedder call. */
async function plannedChunks(
  ctx: KnowledgeContext,
  p: Principal,
  docs: PlannedDocument[],
): Promise<{ chunks: MemoryRecord[][]; usage: TokenUsage }> {
  const embedded = await ctx.embed(docs.flatMap((d) => d.pieces.map((c) => c.content)));
  let at = 0;
  const chunks = docs.map((d) => {
    const mine = embedded ? embedded.vectors.slice(at, at + d.pieces.length) : null;
    at += d.pieces.length;
    return ctx.buildChunks({ p, ...d, vectors: mine });
  });
  return { chunks, usage: embedded?.usage ?? { ...NO_USAGE } };
}

/** memory-store */
export async function store(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
  overrides: StoreOverrides = {},
): Promise<StoreResult> {
  ctx.checkPrincipal(p);
  const prepared = await prepareStore(ctx, p, raw, overrides, emptyBatch());
  if ('deduplicated' in prepared) return prepared.deduplicated;
  if (!('planned' in prepared)) throw new MemError('INTERNAL', 'store: a single item cannot repeat itself.');
  const { chunks, usage } = await plannedChunks(ctx, p, [prepared.planned]);
  await ctx.withVectors(() => ctx.knowledge.insertDocument(chunks[0]!));
  return resultOf(chunks[0]!, false, usage);
}

/**
 * memory-store for many items at once: each item is checked exactly like `store` (input, secrets, keys, content
 * dedup — also against earlier items of the batch), then every new document is embedded in one embedder call
 * and written in one `insertDocuments`. Returns one entry per input, in order: its result, or the MemError that
 * refused it. Failures of the store itself (STORE_UNAVAILABLE, INTERNAL) are thrown for the whole call.
 * A key taken meanwhile by another writer makes the batch write fail; the items are then written one by one so
 * that each gets its own result.
 */
export async function storeMany(
  ctx: KnowledgeContext,
  p: Principal,
  inputs: unknown[],
  overrides: (StoreOverrides | undefined)[] = [],
): Promise<(StoreResult | MemError)[]> {
  ctx.checkPrincipal(p);
  const out: (StoreResult | MemError | undefined)[] = new Array(inputs.length);
  const batch = emptyBatch();
  await prefetchHashes(ctx, p, inputs, overrides, batch);
  const planned: { index: number; doc: PlannedDocument }[] = [];
  const twins: { index: number; of: PlannedDocument }[] = [];
  for (let i = 0; i < inputs.length; i++) {
    try {
      const prepared = await prepareStore(ctx, p, inputs[i], overrides[i] ?? {}, batch);
      if ('deduplicated' in prepared) out[i] = prepared.deduplicated;
      else if ('deduplicatedOf' in prepared) twins.push({ index: i, of: prepared.deduplicatedOf });
      else planned.push({ index: i, doc: prepared.planned });
    } catch (error) {
      out[i] = itemError(error);
    }
  }
  const written = new Map<PlannedDocument, StoreResult>();
  if (planned.length > 0) {
    let docs: MemoryRecord[][] | null = null;
    let usage: TokenUsage = { ...NO_USAGE };
    try {
      ({ chunks: docs, usage } = await plannedChunks(
        ctx,
        p,
        planned.map((x) => x.doc),
      ));
    } catch (error) {
      const e = itemError(error);
      for (const x of planned) out[x.index] = e;
    }
    if (docs) {
      let batched = true;
      try {
        const written = docs;
        await ctx.withVectors(() => ctx.knowledge.insertDocuments(written));
      } catch (error) {
        if (!MemError.is(error, 'KEY_TAKEN') && !MemError.is(error, 'CONFLICT')) throw error;
        batched = false;
      }
      for (const [j, x] of planned.entries()) {
        const chunks = docs[j]!;
        if (!batched) {
          try {
            // A key taken meanwhile: this item is checked and written on its own (the batch's embedding spend
            // goes on the first of them, so that the results still sum to what was spent).
            const r = await store(ctx, p, inputs[x.index], overrides[x.index] ?? {});
            out[x.index] = { ...r, usage: sumUsage([r.usage, usage]) };
            usage = { ...NO_USAGE };
            continue;
          } catch (error) {
            out[x.index] = itemError(error);
            continue;
          }
        }
        // One embedder call for the batch: its first written item carries what it spent (the sum stays right).
        const r = resultOf(chunks, false, usage);
        usage = { ...NO_USAGE };
        out[x.index] = r;
        written.set(x.doc, r);
      }
    }
  }
  for (const t of twins) {
    const original = written.get(t.of);
    if (original) {
      out[t.index] = { ...original, deduplicated: true, usage: { ...NO_USAGE } };
      continue;
    }
    // Its twin was not written in the batch: handle it on its own, as a sequence of stores would.
    try {
      out[t.index] = await store(ctx, p, inputs[t.index], overrides[t.index] ?? {});
    } catch (error) {
      out[t.index] = itemError(error);
    }
  }
  return out as (StoreResult | MemError)[];
}

/** memory-index: index a document by its source path; the same path again replaces it (unchanged content is a no-op). */
export async function index(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
  options: { scope?: Scope } = {},
): Promise<StoreResult & { status: 'created' | 'updated' | 'unchanged' }> {
  ctx.checkPrincipal(p);
  const parsed = parseInput(memoryIndexInput, 'memory-index', raw);
  ctx.guardLabels(p.space, { 'source path': parsed.sourcePath });
  const input = { ...parsed, content: ctx.checkContent(p.space, parsed.content) };
  const key = keyFromSourcePath(input.sourcePath);
  checkKey(key, p.role);
  const scope = options.scope ?? 'agent';
  const existing = await ctx.knowledge.findDocIdByKey(p.space, scope, p.agentId, key);
  if (!existing) {
    const r = await store(ctx, p, {
      content: input.content,
      name: input.sourcePath,
      key,
      scope,
      source: 'file_index',
    });
    return { ...r, status: 'created' };
  }
  const chunks = await ctx.knowledge.getDocument(p.space, existing);
  const first = chunks[0]!;
  if (first.contentHash === contentHash(input.content))
    return { ...resultOf(chunks, true, { ...NO_USAGE }), status: 'unchanged' };
  await scanFields(ctx.secretScanner, { content: input.content, 'source path': input.sourcePath });
  const now = ctx.now();
  const pieces = chunkContent(input.content, ctx.options.chunking);
  const embedded = await ctx.embed(pieces.map((c) => c.content));
  const next = ctx.buildChunks({
    p,
    docId: existing,
    scope,
    agentId: p.agentId,
    key,
    name: first.name,
    content: input.content,
    source: first.source,
    tags: first.tags,
    vectors: embedded?.vectors ?? null,
    pieces,
    hash: contentHash(input.content),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    expiresAt: expiryFor(first.source, key, now, ctx.options.tiers),
    carry: first,
  });
  const version: MemoryVersion = {
    docId: existing,
    space: p.space,
    version: first.version,
    oldContent: reassemble(chunks),
    oldKey: key,
    intent: `re-index ${input.sourcePath}`,
    agentId: p.agentId,
    at: now.toISOString(),
  };
  await ctx.withVectors(() => ctx.knowledge.replaceDocument(p.space, existing, next, version, first.version));
  return { ...resultOf(next, false, embedded?.usage ?? { ...NO_USAGE }), status: 'updated' };
}

/** A new document that passed the checks of a store, before it is embedded and written. */
type PlannedDocument = DocumentPlan;

/** New documents planned so far in one batch, by (scope, agent, content hash) and by (scope, agent, key). */

interface PlannedBatch {
  byHash: Map<string, PlannedDocument>;
  byKey: Map<string, PlannedDocument>;
  /** Stored document id (or null) per `[scope, agentId, hash]`, looked up for the whole batch in one call. */
  storedByHash: Map<string, string | null>;
  /** Each raw input parsed (with its content hash) once per batch, by `prefetchHashes`. */
  parsed: Map<unknown, { input: MemoryStoreInput; hash: string }>;
}

function emptyBatch(): PlannedBatch {
  return { byHash: new Map(), byKey: new Map(), storedByHash: new Map(), parsed: new Map() };
}

/** The result of a store for a document's chunks (all carry its id, key and name). */
function resultOf(chunks: MemoryRecord[], deduplicated: boolean, usage: TokenUsage): StoreResult {
  const first = chunks[0]!;
  return {
    id: first.docId,
    ids: chunks.map((c) => c.id),
    key: first.key,
    name: first.name,
    chunkCount: chunks.length,
    deduplicated,
    usage,
  };
}
