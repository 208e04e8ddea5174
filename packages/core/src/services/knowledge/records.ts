/** The small rules and record shapes shared by the knowledge service's role files. */
import { reassemble } from '../../domain/chunking.js';
import { usefulnessFactor } from '../../domain/ranking.js';
import { MemError } from '../../errors.js';
import type { MemoryRecord, MemoryValidity, Scope } from '../../types.js';
import type { ExportRecord, MemoryDocument, SearchResult } from './types.js';

/** A memory named by its id, or by its key (in a scope). */
export type Ref = { id: string } | { key: string; scope?: Scope | undefined };

/** The error of one item of a batch; failures of the store itself end the whole batch. */
export function itemError(error: unknown): MemError {
  if (!MemError.is(error) || error.code === 'STORE_UNAVAILABLE' || error.code === 'INTERNAL') throw error;
  return error;
}

export function notFound(what: string): MemError {
  return new MemError(
    'NOT_FOUND',
    `No memory with ${what} is visible to you. Check the id (mem search finds it) and the --space/--agent you run as.`,
  );
}

export function keyTaken(key: string, scope: Scope, holder: string): MemError {
  return new MemError(
    'KEY_TAKEN',
    `Key "${key}" (scope ${scope}) is already taken by memory ${holder}. To change that memory use memory-edit (mem edit ${holder} --intent "…" --content "…"), or choose another key.`,
    { details: { key, scope, holder } },
  );
}

export function refOf(
  input: { id?: string | undefined; key?: string | undefined; scope?: Scope | undefined },
  op: string,
): Ref {
  if (input.id !== undefined) return { id: input.id };
  if (input.key !== undefined) return { key: input.key, scope: input.scope };
  throw new MemError('INVALID_INPUT', `Invalid input for ${op}: give the memory's id, or its key (with scope).`);
}

export function occurrences(text: string, passage: string): number {
  let count = 0;
  let at = text.indexOf(passage);
  while (at !== -1) {
    count++;
    at = text.indexOf(passage, at + 1);
  }
  return count;
}

/** A name from the first line of the content (at most `max` characters). */
export function defaultName(content: string, max = 80): string {
  const line = content
    .trim()
    .split('\n')[0]!
    .trim()
    .replace(/^#+\s*/, '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function toResult(
  rec: MemoryRecord,
  s: Pick<SearchResult, 'similarity' | 'keywordRank' | 'vectorRank' | 'relevance' | 'score'>,
): SearchResult {
  return {
    id: rec.id,
    docId: rec.docId,
    key: rec.key,
    name: rec.name,
    content: rec.content,
    scope: rec.scope,
    source: rec.source,
    tags: rec.tags,
    agentId: rec.agentId,
    chunkIndex: rec.chunkIndex,
    chunkCount: rec.chunkCount,
    ...s,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
    expiresAt: rec.expiresAt,
    ...validityOf(rec),
  };
}

/** The validity fields of a record, copied (docs/formation.md). */
export function validityOf(rec: MemoryValidity): MemoryValidity {
  return {
    validFrom: rec.validFrom,
    validTo: rec.validTo,
    invalidatedAt: rec.invalidatedAt,
    supersedes: rec.supersedes,
    supersededBy: rec.supersededBy,
    userId: rec.userId,
    claim: rec.claim && { ...rec.claim },
  };
}

export function toDocument(chunks: MemoryRecord[]): MemoryDocument {
  const first = chunks[0]!;
  return {
    id: first.docId,
    key: first.key,
    name: first.name,
    content: reassemble(chunks),
    scope: first.scope,
    source: first.source,
    tags: first.tags,
    agentId: first.agentId,
    chunkCount: chunks.length,
    chunks: chunks.map((c) => ({ id: c.id, chunkIndex: c.chunkIndex, content: c.content })),
    createdAt: first.createdAt,
    updatedAt: first.updatedAt,
    expiresAt: first.expiresAt,
    accessCount: first.accessCount,
    lastAccessedAt: first.lastAccessedAt,
    alpha: first.alpha,
    beta: first.beta,
    usefulness: usefulnessFactor(first.alpha, first.beta),
    version: first.version,
    embeddingModel: first.embeddingModel,
    ...validityOf(first),
  };
}

const EXPORT_FIELDS = [
  'id',
  'content',
  'name',
  'key',
  'scope',
  'source',
  'tags',
  'agentId',
  'createdAt',
  'updatedAt',
  'expiresAt',
  'accessCount',
  'alpha',
  'beta',
  'validFrom',
  'validTo',
  'invalidatedAt',
  'supersedes',
  'supersededBy',
  'userId',
  'claim',
] as const satisfies readonly (keyof ExportRecord & keyof MemoryDocument)[];

export function toExport(chunks: MemoryRecord[]): ExportRecord {
  const doc = toDocument(chunks);
  return Object.fromEntries(EXPORT_FIELDS.map((f) => [f, doc[f]])) as unknown as ExportRecord;
}

/** The tag prefix `inject-learning` writes to record the lead who injected a learning; no one else may write it. */
export const INJECTED_BY_TAG = 'injected-by:';

/** The lead who injected a memory (from its `injected-by:` tag), or null. */
export function injectedBy(tags: readonly string[]): string | null {
  const tag = tags.find((t) => t.startsWith(INJECTED_BY_TAG));
  return tag ? tag.slice(INJECTED_BY_TAG.length) : null;
}
