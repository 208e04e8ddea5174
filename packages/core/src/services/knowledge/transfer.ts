/** Transfer: export, import (one record or JSON Lines), re-embedding and statistics (docs/writing.md). */

import { z } from 'zod';
import { newId } from '../../domain/ids.js';
import { checkName } from '../../domain/names.js';
import { MemError } from '../../errors.js';
import { NO_USAGE, sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { momentSchema } from '../../schemas.js';
import type { EmbeddingInfo, MemoryRecord, MemoryValidity, Principal } from '../../types.js';
import { embedTexts } from '../embedding.js';
import type { KnowledgeContext } from './context.js';
import { store, storeMany } from './ingest.js';
import { injectedBy, itemError, toExport } from './records.js';
import type {
  ExportRecord,
  ImportLineError,
  ImportRecord,
  ImportReport,
  StoreOverrides,
  StoreResult,
} from './types.js';

/** Export documents the principal may see (a lead: the whole space), oldest first, with original timestamps. */
export async function* exportRecords(
  ctx: KnowledgeContext,
  p: Principal,
  options: { batchSize?: number } = {},
): AsyncGenerator<ExportRecord> {
  ctx.checkPrincipal(p);
  const batch = options.batchSize ?? 500;
  const pending = new Map<string, MemoryRecord[]>();
  let after: { createdAt: string; id: string } | undefined;
  const mayExport = (r: MemoryRecord) => p.role === 'lead' || r.scope === 'swarm' || r.agentId === p.agentId;
  for (;;) {
    const rows = await ctx.knowledge.scan({ space: p.space, limit: batch, ...(after ? { after } : {}) });
    if (rows.length === 0) break;
    for (const row of rows) {
      if (!mayExport(row)) continue;
      const list = pending.get(row.docId) ?? [];
      list.push(row);
      pending.set(row.docId, list);
      if (list.length === row.chunkCount) {
        pending.delete(row.docId);
        yield toExport(list.sort((a, b) => a.chunkIndex - b.chunkIndex));
      }
    }
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
    if (rows.length < batch) break;
  }
  for (const list of pending.values()) yield toExport(list.sort((a, b) => a.chunkIndex - b.chunkIndex));
}

/** The store input and overrides of one import record (as written by export), after its own checks. */
/** How far ahead of the clock an imported `createdAt` may be (clock skew between machines); later is refused. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/**
 * An imported time as stored: a time in the future never ranks as newer than now. Up to `MAX_FUTURE_SKEW_MS` ahead
 * (two machines' clocks disagree) it is clamped to now; further ahead the record is refused with `INVALID_INPUT`.
 */
export function importedTime(createdAt: string, now: Date): string {
  const at = new Date(createdAt);
  if (at.getTime() <= now.getTime()) return at.toISOString();
  if (at.getTime() - now.getTime() <= MAX_FUTURE_SKEW_MS) return now.toISOString();
  throw new MemError(
    'INVALID_INPUT',
    `createdAt "${createdAt}" is in the future (it is now ${now.toISOString()}). Give the time the memory was made, or leave createdAt out to use the time of the import.`,
  );
}

const claimSchema = z
  .object({
    kind: z.string().min(1).max(100),
    subject: z.string().min(1).max(200),
    attribute: z.string().min(1).max(200),
    single: z.boolean(),
    value: z.string().max(2000),
    stance: z.enum(['for', 'against']),
    entities: z.array(z.string().min(1).max(200)).max(50).optional(),
  })
  .strict();

/** Formation's fields of an exported memory (docs/formation.md), all optional; null where a memory has none. */
const validitySchema = z.object({
  validFrom: momentSchema.nullable().optional(),
  validTo: momentSchema.nullable().optional(),
  invalidatedAt: momentSchema.nullable().optional(),
  supersedes: z.string().min(1).max(200).nullable().optional(),
  supersededBy: z.string().min(1).max(200).nullable().optional(),
  userId: z.string().nullable().optional(),
  claim: claimSchema.nullable().optional(),
});

/**
 * The validity an import record carries, its supersede links renamed through `ids` (exported id → the id the memory
 * gets here); a link to a memory the import does not bring is dropped. Undefined for a memory written on purpose.
 */
function importedValidity(
  p: Principal,
  rest: Record<string, unknown>,
  ids: ReadonlyMap<string, string>,
): MemoryValidity | undefined {
  const parsed = validitySchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemError(
      'INVALID_INPUT',
      `${issue?.path.join('.') ?? 'validity'}: ${issue?.message ?? 'is not valid'} (formation fields are validFrom, validTo, invalidatedAt as ISO times, supersedes/supersededBy as exported ids, userId, claim).`,
    );
  }
  const v = parsed.data;
  if (Object.values(v).every((x) => x === undefined || x === null)) return undefined;
  const userId = v.userId ?? null;
  if (userId !== null) {
    checkName(userId, 'user');
    if (p.role !== 'lead' && userId !== p.userId)
      throw new MemError(
        'FORBIDDEN',
        `Only a lead may import memories about user "${userId}"; a worker imports only for the user it acts for.`,
      );
  }
  const link = (id: string | null | undefined) => (id ? (ids.get(id) ?? null) : null);
  return {
    validFrom: v.validFrom ?? null,
    validTo: v.validTo ?? null,
    invalidatedAt: v.invalidatedAt ?? null,
    supersedes: link(v.supersedes),
    supersededBy: link(v.supersededBy),
    userId,
    claim: v.claim ?? null,
  };
}

/** New ids for the exported memories of an import that are linked in a supersede chain, made before any is stored. */
function chainIds(records: readonly unknown[], now: Date): Map<string, string> {
  const ids = new Map<string, string>();
  for (const r of records) {
    if (typeof r !== 'object' || r === null) continue;
    const { id, supersedes, supersededBy } = r as Record<string, unknown>;
    if (typeof id === 'string' && (typeof supersedes === 'string' || typeof supersededBy === 'string'))
      ids.set(id, newId(now));
  }
  return ids;
}

function importInput(
  p: Principal,
  record: ImportRecord,
  now: Date,
  ids: ReadonlyMap<string, string> = new Map(),
): { input: Record<string, unknown>; overrides: StoreOverrides } {
  if (typeof record !== 'object' || record === null)
    throw new MemError('INVALID_INPUT', 'Each import line must be a JSON object with at least "content".');
  const { createdAt, agentId, ...rest } = record as ImportRecord & Record<string, unknown>;
  if (createdAt !== undefined && (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)))) {
    throw new MemError(
      'INVALID_INPUT',
      `createdAt "${String(createdAt)}" is not an ISO-8601 time such as 2026-01-31T12:00:00.000Z.`,
    );
  }
  if (agentId !== undefined && agentId !== p.agentId) {
    if (p.role !== 'lead')
      throw new MemError(
        'FORBIDDEN',
        `Only a lead may import memories for another agent ("${String(agentId)}"). Run with --role lead.`,
      );
    checkName(String(agentId), 'agent');
  }
  const allowed = ['content', 'name', 'key', 'scope', 'source', 'tags'];
  const input = Object.fromEntries(Object.entries(rest).filter(([k]) => allowed.includes(k)));
  // An export of an injected learning carries its `injected-by:` tag: a lead may restore it, no one else.
  const lead = p.role === 'lead' && Array.isArray(rest.tags) ? injectedBy(rest.tags.map(String)) : null;
  const validity = importedValidity(p, rest, ids);
  const docId = typeof rest.id === 'string' ? ids.get(rest.id) : undefined;
  return {
    input,
    overrides: {
      ...(validity ? { validity } : {}),
      ...(docId ? { docId } : {}),
      ...(lead !== null ? { injectedBy: lead } : {}),
      ...(createdAt ? { createdAt: importedTime(createdAt, now) } : {}),
      ...(agentId ? { agentId: String(agentId) } : {}),
    },
  };
}

/** Import one record (as written by export). A lead may import for other agents of the space. */
export async function importRecord(ctx: KnowledgeContext, p: Principal, record: ImportRecord): Promise<StoreResult> {
  ctx.checkPrincipal(p);
  const { input, overrides } = importInput(p, record, ctx.now());
  return store(ctx, p, input, overrides);
}

/** How an import of JSON Lines reports progress, stops and batches its writes. */
export interface ImportLinesOptions {
  onLine?: (done: number, total: number, error?: ImportLineError) => void;
  signal?: AbortSignal;
  batchSize?: number;
}

/**
 * Import JSON Lines (as written by export): each line is checked on its own; a bad line is reported by its
 * number with its code and skipped, the rest go on. Lines are written in batches of `batchSize` (default 500)
 * through `storeMany`. Store failures (the database is down) stop the import and throw.
 */
export async function importLines(
  ctx: KnowledgeContext,
  p: Principal,
  text: string,
  options: ImportLinesOptions = {},
): Promise<ImportReport> {
  ctx.checkPrincipal(p);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
  const lines = text.split(/\r?\n/);
  const numbered: { line: number; text: string }[] = [];
  for (const [i, line] of lines.entries()) if (line.trim()) numbered.push({ line: i + 1, text: line });
  const total = numbered.length;
  const ids = chainIds(
    numbered.map(({ text: line }) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        return null;
      }
    }),
    ctx.now(),
  );
  const report: ImportReport = { imported: 0, duplicates: 0, skipped: 0, errors: [], usage: { ...NO_USAGE } };
  let done = 0;
  for (let start = 0; start < numbered.length; start += batchSize) {
    if (options.signal?.aborted) break;
    const slice = numbered.slice(start, start + batchSize);
    const outcome: (StoreResult | MemError | undefined)[] = new Array(slice.length);
    const inputs: unknown[] = [];
    const overrides: StoreOverrides[] = [];
    const at: number[] = [];
    for (const [j, { text: line }] of slice.entries()) {
      try {
        let rec: unknown;
        try {
          rec = JSON.parse(line);
        } catch (e) {
          throw new MemError('INVALID_INPUT', `not valid JSON (${(e as Error).message})`);
        }
        if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) {
          throw new MemError('INVALID_INPUT', 'each line must be a JSON object with "content"');
        }
        const prepared = importInput(p, rec as ImportRecord, ctx.now(), ids);
        inputs.push(prepared.input);
        overrides.push(prepared.overrides);
        at.push(j);
      } catch (e) {
        outcome[j] = itemError(e);
      }
    }
    const results = inputs.length > 0 ? await storeMany(ctx, p, inputs, overrides) : [];
    for (const [k, r] of results.entries()) outcome[at[k]!] = r;
    for (const [j, r] of outcome.entries()) {
      let error: ImportLineError | undefined;
      if (r === undefined || MemError.is(r)) {
        const e = r ?? new MemError('INTERNAL', 'import: a line got no result.');
        error = { line: slice[j]!.line, code: e.code, message: e.message };
        report.errors.push(error);
        report.skipped++;
      } else if (r.deduplicated) report.duplicates++;
      else {
        report.imported++;
        report.usage = sumUsage([report.usage, r.usage]);
      }
      options.onLine?.(++done, total, error);
    }
  }
  return report;
}

/** Re-embed every stored chunk with the current embedder (all spaces). */
export async function reindex(
  ctx: KnowledgeContext,
  options: { batchSize?: number; onProgress?: (done: number) => void } = {},
): Promise<{ chunks: number; model: string; dimension: number; usage: TokenUsage }> {
  const embedder = ctx.embedder;
  const space = ctx.embeddingSpace;
  if (!embedder || !space) {
    throw new MemError(
      'CAPABILITY_MISSING',
      'reindex needs an embedder and a store with a vector arm. Configure an embedder (e.g. the local one) and try again.',
    );
  }
  const info: EmbeddingInfo = { model: embedder.id, dimension: embedder.dimension };
  const batch = options.batchSize ?? 64;
  let after: { createdAt: string; id: string } | undefined;
  let done = 0;
  let usage: TokenUsage = { ...NO_USAGE };
  for (;;) {
    const rows = await ctx.knowledge.scan({ limit: batch, ...(after ? { after } : {}) });
    if (rows.length === 0) break;
    const embedded = await embedTexts(
      embedder,
      rows.map((r) => r.content),
    );
    const vectors = embedded.vectors;
    usage = sumUsage([usage, embedded.usage]);
    await ctx.knowledge.updateEmbeddings(
      rows.map((r, i) => ({ id: r.id, embedding: vectors[i]! })),
      info,
    );
    done += rows.length;
    options.onProgress?.(done);
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
    if (rows.length < batch) break;
  }
  await space.record(info);
  return { chunks: done, ...info, usage };
}

export async function stats(ctx: KnowledgeContext, p: Principal) {
  ctx.checkPrincipal(p);
  return ctx.knowledge.stats(p.space);
}
