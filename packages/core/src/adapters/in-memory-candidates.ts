/**
 * In-memory adapters of the episode and procedure ports (docs/structured.md). They return candidates: keyword hits scored
 * by the in-memory BM25 of domain/text.ts over the search text of domain/search-text.ts, and vector hits by exact
 * cosine. Ranking happens in @mem/episodic and @mem/procedural.
 */

import { cosine } from '../domain/ranking.js';
import { episodeSearchText, procedureSearchText } from '../domain/search-text.js';
import { bm25Rank, tokenize } from '../domain/text.js';
import { MemError } from '../errors.js';
import type { EpisodeStore } from '../ports/episode-store.js';
import type { KeywordHit, VectorHit } from '../ports/knowledge-store.js';
import type { ProcedureStore } from '../ports/procedure-store.js';
import type { Episode, Procedure, StoredEmbedding } from '../types-structured.js';

const ADAPTER = 'in-memory';
const copy = <T>(value: T): T => structuredClone(value);

interface Row<T> {
  space: string;
  record: T;
  tokens: string[];
  embedding: StoredEmbedding | null;
}

/** Shared machinery: rows per (space, id), BM25 and cosine over one space. */
class CandidateRows<T extends { id: string }> {
  readonly rows = new Map<string, Row<T>>();

  constructor(
    private readonly what: string,
    private readonly text: (record: T) => string,
  ) {}

  key(space: string, id: string): string {
    return `${space}\u0000${id}`;
  }

  insert(space: string, record: T, embedding: StoredEmbedding | null): void {
    const key = this.key(space, record.id);
    if (this.rows.has(key))
      throw new MemError(
        'CONFLICT',
        `${ADAPTER}: ${this.what} id "${record.id}" already exists in this space. Use a new id.`,
      );
    this.rows.set(key, {
      space,
      record: copy(record),
      tokens: tokenize(this.text(record)),
      embedding: embedding ? { vector: Float32Array.from(embedding.vector), model: embedding.model } : null,
    });
  }

  get(space: string, id: string): T | null {
    const row = this.rows.get(this.key(space, id));
    return row ? copy(row.record) : null;
  }

  getMany(space: string, ids: readonly string[]): T[] {
    const out: T[] = [];
    for (const id of ids) {
      const row = this.rows.get(this.key(space, id));
      if (row) out.push(copy(row.record));
    }
    return out;
  }

  inSpace(space: string): Row<T>[] {
    return [...this.rows.values()].filter((r) => r.space === space);
  }

  keyword(space: string, terms: readonly string[], limit: number): KeywordHit[] {
    if (limit <= 0) return [];
    const corpus = this.inSpace(space).map((r) => ({ id: r.record.id, tokens: r.tokens }));
    return bm25Rank(corpus, terms).slice(0, limit);
  }

  vector(space: string, vector: Float32Array, model: string, limit: number): VectorHit[] {
    if (limit <= 0) return [];
    const hits: VectorHit[] = [];
    for (const r of this.inSpace(space)) {
      if (!r.embedding || r.embedding.model !== model || r.embedding.vector.length !== vector.length) continue;
      hits.push({ id: r.record.id, similarity: cosine(vector, r.embedding.vector) });
    }
    hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit);
  }

  delete(space: string, id: string): boolean {
    return this.rows.delete(this.key(space, id));
  }
}

/** Newest first by a time field, ties by id descending (the order the ports document). */
function newestFirst<T extends { id: string }>(time: (r: T) => string) {
  return (a: T, b: T): number => {
    const ta = time(a);
    const tb = time(b);
    if (ta !== tb) return ta < tb ? 1 : -1;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  };
}

/** What the episode and procedure stores share: rows per space, the two search arms, reads and deletes. */
abstract class InMemoryCandidateStore<T extends { id: string }> {
  readonly name = ADAPTER;
  readonly capabilities = { keyword: true, vector: true };
  protected readonly data: CandidateRows<T>;

  protected constructor(data: CandidateRows<T>) {
    this.data = data;
  }

  async insert(space: string, record: T, embedding: StoredEmbedding | null): Promise<void> {
    this.data.insert(space, record, embedding);
  }

  async get(space: string, id: string): Promise<T | null> {
    return this.data.get(space, id);
  }

  async getMany(space: string, ids: readonly string[]): Promise<T[]> {
    return this.data.getMany(space, ids);
  }

  async count(space: string): Promise<number> {
    return this.data.inSpace(space).length;
  }

  async keywordSearch(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]> {
    return this.data.keyword(space, terms, limit);
  }

  async vectorSearch(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]> {
    return this.data.vector(space, vector, model, limit);
  }

  async delete(space: string, id: string): Promise<boolean> {
    return this.data.delete(space, id);
  }

  /** The newest `limit` records of a space that pass `keep`, newest first by `time`. */
  protected newest(space: string, limit: number, time: (r: T) => string, keep: (r: T) => boolean = () => true): T[] {
    if (limit <= 0) return [];
    return this.data
      .inSpace(space)
      .map((r) => r.record)
      .filter(keep)
      .sort(newestFirst(time))
      .slice(0, limit)
      .map(copy);
  }
}

export class InMemoryEpisodeStore extends InMemoryCandidateStore<Episode> implements EpisodeStore {
  constructor(shareWith?: InMemoryEpisodeStore) {
    super(shareWith ? shareWith.data : new CandidateRows<Episode>('episode', episodeSearchText));
  }

  async recent(space: string, limit: number): Promise<Episode[]> {
    return this.newest(space, limit, (e) => e.timestamp);
  }

  async byTag(space: string, tag: string, limit: number): Promise<Episode[]> {
    return this.newest(
      space,
      limit,
      (e) => e.timestamp,
      (e) => e.tags.includes(tag),
    );
  }
}

export class InMemoryProcedureStore extends InMemoryCandidateStore<Procedure> implements ProcedureStore {
  constructor(shareWith?: InMemoryProcedureStore) {
    super(shareWith ? shareWith.data : new CandidateRows<Procedure>('procedure', procedureSearchText));
  }

  async list(space: string, limit: number): Promise<Procedure[]> {
    return this.newest(space, limit, (p) => p.createdAt);
  }

  async incrementOutcome(space: string, id: string, success: boolean, at: string): Promise<Procedure> {
    // One synchronous step: nothing can interleave between the read and the write in this process.
    const row = this.data.rows.get(this.data.key(space, id));
    if (!row) {
      throw new MemError(
        'NOT_FOUND',
        `${ADAPTER}: no procedure with id "${id}" in this space. List procedures to find its id.`,
      );
    }
    if (success) row.record.successCount += 1;
    else row.record.failureCount += 1;
    row.record.updatedAt = at;
    return copy(row.record);
  }
}
