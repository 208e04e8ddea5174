import { searchCandidatesWith } from '../adapter-kit/search.js';
import { matchesFilter } from '../domain/filter.js';
import { cosine } from '../domain/ranking.js';
import { bm25Rank, DEFAULT_BM25, tokenize } from '../domain/text.js';
import { MemError } from '../errors.js';
import type {
  CandidateQuery,
  CandidateSet,
  DeletedByAgent,
  FormationEntry,
  FormationWrite,
  HashLookup,
  KnowledgeStats,
  KnowledgeStore,
  KnowledgeStoreCapabilities,
  ScanOptions,
  SearchFilter,
  VectorHit,
} from '../ports/knowledge-store.js';
import type { EmbeddingInfo, MemoryRecord, MemoryVersion, Rating, RatingOutcome, Scope } from '../types.js';

const clone = (r: MemoryRecord): MemoryRecord => ({ ...r, tags: [...r.tags], claim: r.claim && { ...r.claim } });
const cloneEntry = (e: FormationEntry): FormationEntry => ({
  ...e,
  evidence: [...e.evidence],
  related: [...e.related],
});

/**
 * KnowledgeStore kept in process memory: for tests, demos and short-lived agents. Keyword arm: BM25 over
 * name + content; vector arm: exact cosine. Nothing survives the process.
 */
export class InMemoryKnowledgeStore implements KnowledgeStore {
  readonly name = 'in-memory';
  readonly capabilities: KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    exactVector: true,
    keywordLengthNorm: { kind: 'bm25', ...DEFAULT_BM25 },
  };
  private readonly chunks = new Map<string, MemoryRecord>();
  private readonly tokens = new Map<string, string[]>();
  private readonly versions: MemoryVersion[] = [];
  private readonly ratings: Rating[] = [];
  private readonly log: FormationEntry[] = [];
  private embeddingInfo: EmbeddingInfo | null = null;

  private docKey(r: Pick<MemoryRecord, 'space' | 'scope' | 'agentId' | 'key'>): string {
    return `${r.space}\u0000${r.scope}\u0000${r.agentId}\u0000${r.key}`;
  }

  private holderOfKey(r: Pick<MemoryRecord, 'space' | 'scope' | 'agentId' | 'key'>): string | null {
    for (const c of this.chunks.values())
      if (c.key === r.key && c.space === r.space && c.agentId === r.agentId && c.scope === r.scope) return c.docId;
    return null;
  }

  private docChunks(space: string, docId: string): MemoryRecord[] {
    return [...this.chunks.values()]
      .filter((c) => c.space === space && c.docId === docId)
      .sort((a, b) => a.chunkIndex - b.chunkIndex);
  }

  private put(r: MemoryRecord): void {
    this.chunks.set(r.id, clone(r));
    this.tokens.set(r.id, tokenize(`${r.name} ${r.content}`));
  }

  private remove(id: string): void {
    this.chunks.delete(id);
    this.tokens.delete(id);
  }

  private takenError(key: string, holder: string): MemError {
    return new MemError(
      'KEY_TAKEN',
      `in-memory: key "${key}" is already taken by memory ${holder}. Use memory-edit to change it, or choose another key.`,
    );
  }

  async insertDocument(chunks: MemoryRecord[]): Promise<void> {
    return this.insertDocuments([chunks]);
  }

  async insertDocuments(docs: MemoryRecord[][]): Promise<void> {
    // Check every document (against the store and against the batch) before writing anything.
    const firsts = docs.flatMap((chunks) => (chunks[0] ? [chunks[0]] : []));
    if (firsts.length === 0) return;
    const wanted = new Map<string, MemoryRecord>();
    for (const first of firsts) {
      const k = this.docKey(first);
      const earlier = wanted.get(k);
      if (earlier && earlier.docId !== first.docId) throw this.takenError(first.key, earlier.docId);
      wanted.set(k, first);
    }
    // One pass over the stored chunks for all keys (the cheap key test first: most chunks hold none of them).
    const keys = new Set(firsts.map((f) => f.key));
    for (const c of this.chunks.values()) {
      if (!keys.has(c.key)) continue;
      const claimant = wanted.get(this.docKey(c));
      if (claimant && claimant.docId !== c.docId) throw this.takenError(claimant.key, c.docId);
    }
    const ids = new Set<string>();
    for (const chunks of docs) {
      for (const c of chunks) {
        if (this.chunks.has(c.id) || ids.has(c.id))
          throw new MemError('CONFLICT', `in-memory: chunk id ${c.id} already exists.`);
        ids.add(c.id);
      }
    }
    for (const chunks of docs) for (const c of chunks) this.put(c);
  }

  async form(space: string, write: FormationWrite): Promise<void> {
    // Every close is checked before anything is written, then the inserts are checked by insertDocuments.
    for (const close of write.close) {
      const first = this.docChunks(space, close.docId)[0];
      if (!first || first.invalidatedAt !== null)
        throw new MemError(
          'CONFLICT',
          `in-memory: memory ${close.docId} is ${first ? 'already closed' : 'gone'}; distil again to decide against what is current now.`,
          { retryable: true },
        );
    }
    await this.insertDocuments(write.insert);
    for (const close of write.close)
      for (const c of this.docChunks(space, close.docId))
        Object.assign(c, {
          validTo: close.validTo,
          invalidatedAt: close.invalidatedAt,
          supersededBy: close.supersededBy,
        });
    for (const e of write.log) this.log.push(cloneEntry({ ...e, space }));
  }

  async formationLog(space: string, memoryIds: readonly string[]): Promise<FormationEntry[]> {
    const ids = new Set(memoryIds);
    return this.log
      .filter((e) => e.space === space && ids.has(e.memoryId))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(cloneEntry);
  }

  private checkVersion(space: string, docId: string, expected: number): MemoryRecord[] {
    const current = this.docChunks(space, docId);
    const first = current[0];
    if (!first) throw new MemError('NOT_FOUND', `in-memory: memory ${docId} no longer exists.`);
    if (first.version !== expected) {
      throw new MemError(
        'CONFLICT',
        `in-memory: memory ${docId} changed meanwhile (version ${first.version}, expected ${expected}). Read it again and retry.`,
        {
          retryable: true,
        },
      );
    }
    return current;
  }

  async replaceDocument(
    space: string,
    docId: string,
    chunks: MemoryRecord[],
    version: MemoryVersion,
    expectedVersion: number,
  ): Promise<void> {
    const current = this.checkVersion(space, docId, expectedVersion);
    const first = chunks[0];
    if (first) {
      const holder = this.holderOfKey(first);
      if (holder && holder !== docId) throw this.takenError(first.key, holder);
    }
    // Ratings and reads do not change the version: keep the counters as stored now, not as the editor read them.
    const stored = current[0];
    const counters = stored
      ? {
          accessCount: stored.accessCount,
          lastAccessedAt: stored.lastAccessedAt,
          alpha: stored.alpha,
          beta: stored.beta,
        }
      : {};
    for (const c of current) this.remove(c.id);
    for (const c of chunks) this.put({ ...c, ...counters });
    this.versions.push({ ...version });
  }

  async moveDocument(
    space: string,
    docId: string,
    change: { newKey: string; expiresAt?: string | null; updatedAt: string },
    version: MemoryVersion,
    expectedVersion: number,
  ): Promise<void> {
    const current = this.checkVersion(space, docId, expectedVersion);
    const first = current[0]!;
    const holder = this.holderOfKey({ ...first, key: change.newKey });
    if (holder && holder !== docId) throw this.takenError(change.newKey, holder);
    for (const c of current) {
      const next: MemoryRecord = { ...c, key: change.newKey, updatedAt: change.updatedAt, version: c.version + 1 };
      if (change.expiresAt !== undefined) next.expiresAt = change.expiresAt;
      this.put(next);
    }
    this.versions.push({ ...version });
  }

  async deleteDocument(space: string, docId: string): Promise<number> {
    const current = this.docChunks(space, docId);
    for (const c of current) this.remove(c.id);
    this.removeDocHistory(space, new Set([docId]));
    return current.length;
  }

  async deleteByAgent(space: string, agentId: string): Promise<DeletedByAgent> {
    const doomed = [...this.chunks.values()].filter((c) => c.space === space && c.agentId === agentId);
    const docIds = new Set(doomed.map((c) => c.docId));
    for (const c of doomed) this.remove(c.id);
    const { versions, ratings } = this.removeDocHistory(space, docIds);
    return { documents: docIds.size, chunks: doomed.length, versions, ratings };
  }

  /** Drop the version and rating rows of documents; returns how many of each went. */
  private removeDocHistory(space: string, docIds: Set<string>): { versions: number; ratings: number } {
    let versions = 0;
    let ratings = 0;
    for (let i = this.versions.length - 1; i >= 0; i--) {
      const v = this.versions[i]!;
      if (v.space === space && docIds.has(v.docId)) {
        this.versions.splice(i, 1);
        versions++;
      }
    }
    for (let i = this.ratings.length - 1; i >= 0; i--) {
      const r = this.ratings[i]!;
      if (r.space === space && docIds.has(r.docId)) {
        this.ratings.splice(i, 1);
        ratings++;
      }
    }
    for (let i = this.log.length - 1; i >= 0; i--) {
      const e = this.log[i]!;
      if (e.space === space && docIds.has(e.memoryId)) this.log.splice(i, 1);
    }
    return { versions, ratings };
  }

  async getChunk(space: string, id: string): Promise<MemoryRecord | null> {
    const c = this.chunks.get(id);
    return c && c.space === space ? clone(c) : null;
  }

  async getDocument(space: string, docId: string): Promise<MemoryRecord[]> {
    return this.docChunks(space, docId).map(clone);
  }

  async getChunks(space: string, ids: string[]): Promise<MemoryRecord[]> {
    const out: MemoryRecord[] = [];
    for (const id of ids) {
      const c = this.chunks.get(id);
      if (c && c.space === space) out.push(clone(c));
    }
    return out;
  }

  async findDocIdByKey(space: string, scope: Scope, agentId: string, key: string): Promise<string | null> {
    return this.holderOfKey({ space, scope, agentId, key });
  }

  async findDocIdsByHashes(space: string, lookups: readonly HashLookup[]): Promise<(string | null)[]> {
    return lookups.map((l) => this.holderOfHash(space, l));
  }

  /** The document of the first stored chunk (insertion order) with this hash, scope and agent, or null. */
  private holderOfHash(space: string, { scope, agentId, contentHash }: HashLookup): string | null {
    for (const c of this.chunks.values()) {
      if (c.space === space && c.scope === scope && c.agentId === agentId && c.contentHash === contentHash)
        return c.docId;
    }
    return null;
  }

  async searchCandidates(q: CandidateQuery): Promise<CandidateSet> {
    const visible = [...this.chunks.values()].filter((c) => matchesFilter(c, q.filter));
    return searchCandidatesWith(q, {
      keyword: (terms, limit) =>
        bm25Rank(
          visible.map((c) => ({ id: c.id, tokens: this.tokens.get(c.id)! })),
          terms,
        ).slice(0, limit),
      vector: (vector, limit) => {
        const hits: VectorHit[] = [];
        for (const c of visible)
          if (c.embedding && c.embedding.length === vector.length)
            hits.push({ id: c.id, similarity: cosine(vector, c.embedding) });
        hits.sort((a, b) => b.similarity - a.similarity || a.id.localeCompare(b.id));
        return hits.slice(0, limit);
      },
      rows: (ids) => this.getChunks(q.filter.space, ids),
      neighbours: (ids, radius) => this.neighbours(q.filter, visible, ids, radius),
    });
  }

  private neighbours(filter: SearchFilter, visible: MemoryRecord[], ids: string[], radius: number): MemoryRecord[] {
    const out = new Map<string, MemoryRecord>();
    for (const id of ids) {
      const c = this.chunks.get(id);
      if (!c || !matchesFilter(c, filter)) continue;
      const line = visible
        .filter((o) => o.scope === c.scope && o.agentId === c.agentId && o.source === c.source)
        .sort(byTimeThenId);
      const at = line.findIndex((o) => o.id === id);
      for (const o of [...line.slice(Math.max(0, at - radius), at), ...line.slice(at + 1, at + 1 + radius)])
        out.set(o.id, clone(o));
    }
    return [...out.values()];
  }

  async recordAccess(space: string, docId: string, at: string): Promise<void> {
    for (const c of this.docChunks(space, docId)) {
      c.accessCount += 1;
      c.lastAccessedAt = at;
    }
  }

  async addRating(rating: Rating): Promise<RatingOutcome> {
    if (this.ratings.some((r) => r.space === rating.space && r.docId === rating.docId && r.taskId === rating.taskId)) {
      throw new MemError(
        'ALREADY_RATED',
        `memory ${rating.docId} was already rated in task "${rating.taskId}". A memory counts once per task; rate it again in another task.`,
      );
    }
    const chunks = this.docChunks(rating.space, rating.docId);
    if (chunks.length === 0) throw new MemError('NOT_FOUND', `in-memory: memory ${rating.docId} no longer exists.`);
    let replaced = 0;
    let dAlpha = 0;
    let dBeta = 0;
    if (rating.counted) {
      for (const r of this.ratings) {
        if (r.space !== rating.space || r.docId !== rating.docId || r.agentId !== rating.agentId || !r.counted)
          continue;
        r.counted = false;
        replaced++;
        if (r.useful) dAlpha -= 1;
        else dBeta -= 1;
      }
      if (rating.useful) dAlpha += 1;
      else dBeta += 1;
    }
    this.ratings.push({ ...rating });
    for (const c of chunks) {
      c.alpha += dAlpha;
      c.beta += dBeta;
    }
    return { replaced };
  }

  async listVersions(space: string, docId: string): Promise<MemoryVersion[]> {
    return this.versions.filter((v) => v.space === space && v.docId === docId).map((v) => ({ ...v }));
  }

  async deleteExpired(now: string, space?: string): Promise<number> {
    const doomed = [...this.chunks.values()].filter(
      (c) => c.expiresAt !== null && c.expiresAt <= now && (space === undefined || c.space === space),
    );
    const bySpace = new Map<string, Set<string>>();
    for (const c of doomed) {
      this.remove(c.id);
      const set = bySpace.get(c.space) ?? new Set<string>();
      set.add(c.docId);
      bySpace.set(c.space, set);
    }
    for (const [s, ids] of bySpace) this.removeDocHistory(s, ids);
    return doomed.length;
  }

  async scan(options: ScanOptions): Promise<MemoryRecord[]> {
    const after = options.after;
    return [...this.chunks.values()]
      .filter((c) => options.space === undefined || c.space === options.space)
      .filter((c) => !after || c.createdAt > after.createdAt || (c.createdAt === after.createdAt && c.id > after.id))
      .sort(byTimeThenId)
      .slice(0, options.limit)
      .map(clone);
  }

  async updateEmbeddings(updates: { id: string; embedding: Float32Array }[], info: EmbeddingInfo): Promise<void> {
    for (const u of updates) {
      const c = this.chunks.get(u.id);
      if (c) {
        c.embedding = u.embedding;
        c.embeddingModel = info.model;
      }
    }
    this.embeddingInfo = { ...info };
  }

  async stats(space: string): Promise<KnowledgeStats> {
    const rows = [...this.chunks.values()].filter((c) => c.space === space);
    const count = (f: (r: MemoryRecord) => string) =>
      rows.reduce<Record<string, number>>((acc, r) => {
        if (r.chunkIndex === 0) acc[f(r)] = (acc[f(r)] ?? 0) + 1;
        return acc;
      }, {});
    return {
      documents: rows.filter((r) => r.chunkIndex === 0).length,
      chunks: rows.length,
      bySource: count((r) => r.source),
      byScope: count((r) => r.scope),
    };
  }

  async getEmbeddingInfo(): Promise<EmbeddingInfo | null> {
    return this.embeddingInfo ? { ...this.embeddingInfo } : null;
  }

  async setEmbeddingInfo(info: EmbeddingInfo): Promise<void> {
    this.embeddingInfo = { ...info };
  }

  async close(): Promise<void> {}
}

export function createInMemoryKnowledgeStore(): InMemoryKnowledgeStore {
  return new InMemoryKnowledgeStore();
}

/** The (createdAt, id) order of scans and neighbours. */
function byTimeThenId(a: MemoryRecord, b: MemoryRecord): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
