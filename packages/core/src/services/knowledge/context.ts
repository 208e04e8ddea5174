import { calibrationFrom, calibrationTexts, type EmbedderCalibration } from '../../domain/calibration.js';
import { chunkId } from '../../domain/ids.js';
import { isExpired } from '../../domain/lifecycle.js';
import { checkName } from '../../domain/names.js';
import { cosine } from '../../domain/ranking.js';
import { guardFields, guardText, personalDataPolicy } from '../../domain/secrets.js';
import { MemError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Embedder, EmbeddingResult } from '../../ports/embedder.js';
import type { KnowledgeStore, KnowledgeStoreCapabilities, SearchFilter } from '../../ports/knowledge-store.js';
import { type Logger, silentLogger } from '../../ports/logger.js';
import type { QueryRewriter } from '../../ports/query-rewriter.js';
import type { Reranker } from '../../ports/reranker.js';
import type { SecretScanner } from '../../ports/secret-scanner.js';
import { NO_USAGE, type TokenUsage } from '../../ports/summarizer.js';
import {
  type MemoryRecord,
  type MemoryValidity,
  OPEN_VALIDITY,
  type Principal,
  type Scope,
  type Source,
} from '../../types.js';
import { embedTexts } from '../embedding.js';
import { EmbeddingSpace } from './embedding-space.js';
import { DEFAULT_KNOWLEDGE_OPTIONS, type KnowledgeOptions } from './options.js';
import { notFound, type Ref, validityOf } from './records.js';
import type { GraphQuery, KnowledgeServiceDeps } from './types.js';

/** A document about to be chunked and written: what every chunk of it carries. */
export interface DocumentPlan {
  docId: string;
  scope: Scope;
  agentId: string;
  key: string;
  name: string;
  content: string;
  source: Source;
  tags: string[];
  pieces: { content: string; bodyStart: number }[];
  hash: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  validity?: MemoryValidity | undefined;
}

/**
 * What every role of the knowledge service shares: the store, the embedder and its vector space, the options, the
 * clock, the logger and the scanners, and the checks all roles apply (principal, visibility, ownership, content).
 * One per service: it also holds the embedder's calibration, computed once.
 */
export class KnowledgeContext {
  readonly knowledge: KnowledgeStore;
  readonly embedder: Embedder | undefined;
  readonly reranker: Reranker | undefined;
  readonly queryRewriter: QueryRewriter | undefined;
  readonly graphQuery: GraphQuery | undefined;
  readonly logger: Logger;
  readonly options: KnowledgeOptions;
  readonly clock: Clock;
  readonly secretScanner: SecretScanner | undefined;
  /**
   * The store's search capabilities, read once when the service is built (the stack checks them when it is assembled):
   * whether the keyword arm runs and how its scores scale with length. The vector arm shows in `useVectors`.
   */
  readonly searchCapabilities: Readonly<Pick<KnowledgeStoreCapabilities, 'keyword' | 'keywordLengthNorm'>>;

  constructor(deps: KnowledgeServiceDeps) {
    this.secretScanner = deps.secretScanner;
    this.knowledge = deps.store;
    this.embedder = deps.embedder;
    this.reranker = deps.reranker;
    this.queryRewriter = deps.queryRewriter;
    this.graphQuery = deps.graphQuery;
    this.clock = deps.clock;
    this.logger = deps.logger ?? silentLogger;
    this.options = { ...DEFAULT_KNOWLEDGE_OPTIONS, ...deps.options };
    const { keyword, vector, keywordLengthNorm } = deps.capabilities ?? this.knowledge.capabilities;
    this.searchCapabilities = Object.freeze({ keyword, keywordLengthNorm });
    this.embeddingSpace =
      this.embedder && vector ? new EmbeddingSpace(this.knowledge, this.embedder, this.clock) : undefined;
  }

  now(): Date {
    return this.clock.now();
  }

  // ---------- embedding space ----------

  get useVectors(): boolean {
    return this.embeddingSpace !== undefined;
  }

  /** The embedding space check, kept per service (embedding-space.ts); undefined without a vector arm. */
  readonly embeddingSpace: EmbeddingSpace | undefined;

  /**
   * Vectors for texts and what the embedder spent, or null without a vector arm. While the embedding space's kept
   * match holds, the embedder is called before this returns (no store read first), so that it is already at work
   * during whatever the caller does next on this thread (a search's keyword arm).
   */
  embed(texts: string[]): Promise<EmbeddingResult | null> {
    const space = this.embeddingSpace;
    if (!space) return Promise.resolve(null);
    if (space.fresh()) return embedTexts(this.embedder!, texts);
    return space.ensure().then(() => embedTexts(this.embedder!, texts));
  }

  /**
   * A store call that writes or reads vectors of this stack's space, under the embedding space's guard (a failure
   * re-reads the store's embedder at once, unless `notTheStores` says the error is another's, e.g. the embedder's); the
   * call alone without a vector arm.
   */
  withVectors<T>(
    call: () => Promise<T>,
    foreign?: (answer: T) => boolean,
    notTheStores?: (error: unknown) => boolean,
  ): Promise<T> {
    return this.embeddingSpace ? this.embeddingSpace.guard(call, foreign, notTheStores) : call();
  }

  private calibrationRun: Promise<EmbedderCalibration | null> | undefined;

  /**
   * The embedder's cosine scale (domain/calibration.ts): the calibration pairs embedded once per service, the tokens
   * reported by the call that embedded them. Null without vectors or when the embedder cannot tell the pairs apart.
   * A failed run is not kept (the next call tries again).
   */
  async calibration(): Promise<{ calibration: EmbedderCalibration | null; usage: TokenUsage }> {
    if (!this.useVectors) return { calibration: null, usage: { ...NO_USAGE } };
    if (this.calibrationRun) return { calibration: await this.calibrationRun, usage: { ...NO_USAGE } };
    let usage: TokenUsage = { ...NO_USAGE };
    const run = (async () => {
      const embedded = await this.embed(calibrationTexts());
      if (!embedded) return null;
      usage = embedded.usage;
      const v = embedded.vectors;
      const cosines: number[] = [];
      for (let i = 0; i + 1 < v.length; i += 2) cosines.push(cosine(v[i]!, v[i + 1]!));
      return calibrationFrom(cosines);
    })();
    this.calibrationRun = run;
    try {
      return { calibration: await run, usage };
    } catch (error) {
      this.calibrationRun = undefined;
      throw error;
    }
  }

  // ---------- helpers ----------

  checkPrincipal(p: Principal): void {
    checkName(p.space, 'space');
    checkName(p.agentId, 'agent');
    if (p.userId !== undefined) checkName(p.userId, 'user');
    if (p.role !== 'lead' && p.role !== 'worker') {
      throw new MemError('INVALID_INPUT', `Invalid role "${String(p.role)}": use "lead" or "worker".`);
    }
  }

  /**
   * The filter every search of `p` starts from: the space, what the agent may see, the time, and the end user it acts
   * for (memories about another user, or about a user when it acts for none, stay out). What is current unless `time`
   * asks for a past moment or the whole history.
   */
  viewFilter(p: Principal, time: { asOf?: string | undefined; history?: boolean | undefined } = {}): SearchFilter {
    return {
      space: p.space,
      viewerAgentId: p.agentId,
      now: this.now().toISOString(),
      ...(p.userId !== undefined ? { userId: p.userId } : {}),
      ...(time.history === true ? { history: true } : time.asOf !== undefined ? { asOf: time.asOf } : {}),
    };
  }

  private visible(p: Principal, rec: MemoryRecord): boolean {
    if (rec.space !== p.space) return false;
    if (rec.scope === 'agent' && rec.agentId !== p.agentId) return false;
    if (rec.userId !== null && rec.userId !== p.userId) return false;
    return !(rec.expiresAt !== null && Date.parse(rec.expiresAt) <= this.now().getTime());
  }

  /** Find a document the principal may see; NOT_FOUND otherwise (never revealing that it exists). */
  async resolve(p: Principal, ref: Ref): Promise<MemoryRecord[]> {
    let docId: string | null = null;
    if ('id' in ref) {
      const chunk = await this.knowledge.getChunk(p.space, ref.id);
      docId = chunk && this.visible(p, chunk) ? chunk.docId : null;
      if (!docId) throw notFound(`id "${ref.id}"`);
    } else {
      const scope = ref.scope ?? 'agent';
      docId = await this.knowledge.findDocIdByKey(p.space, scope, p.agentId, ref.key);
      if (!docId) throw notFound(`key "${ref.key}" (scope ${scope}, agent ${p.agentId})`);
    }
    const chunks = await this.knowledge.getDocument(p.space, docId);
    const first = chunks[0];
    if (!first || !this.visible(p, first)) throw notFound('id' in ref ? `id "${ref.id}"` : `key "${ref.key}"`);
    return chunks;
  }

  /**
   * The chunks of a document that is still alive, or null. An expired document found on the way (awaiting gc)
   * is deleted here, so that it never blocks its key or content hash.
   */
  async liveDocument(space: string, docId: string | null): Promise<MemoryRecord[] | null> {
    if (!docId) return null;
    const chunks = await this.knowledge.getDocument(space, docId);
    const first = chunks[0];
    if (!first) return null;
    if (isExpired(first.expiresAt, this.now())) {
      await this.knowledge.deleteDocument(space, docId);
      return null;
    }
    return chunks;
  }

  /** The owner may change a memory; a lead may change any memory it can see. */
  assertMayChange(p: Principal, doc: MemoryRecord): void {
    if (doc.agentId === p.agentId || p.role === 'lead') return;
    throw new MemError(
      'FORBIDDEN',
      `Memory ${doc.docId} belongs to agent "${doc.agentId}"; only its owner or a lead may change it. Store your own memory instead, or ask a lead.`,
    );
  }

  /** The chunks to write for a document: its pieces, with their vectors (or none) and the counters it carries over. */
  buildChunks(
    args: DocumentPlan & {
      p: Principal;
      vectors: Float32Array[] | null;
      carry?:
        | (Pick<MemoryRecord, 'accessCount' | 'lastAccessedAt' | 'alpha' | 'beta' | 'version'> & MemoryValidity)
        | undefined;
      /** The times and chain of a formed memory; default: those `carry` holds, or a memory written on purpose. */
      validity?: MemoryValidity | undefined;
    },
  ): MemoryRecord[] {
    const model = args.vectors ? this.embedder!.id : null;
    const validity = validityOf(args.validity ?? args.carry ?? OPEN_VALIDITY);
    return args.pieces.map((piece, i) => ({
      id: chunkId(args.docId, i),
      docId: args.docId,
      space: args.p.space,
      scope: args.scope,
      agentId: args.agentId,
      key: args.key,
      name: args.name,
      content: piece.content,
      bodyStart: piece.bodyStart,
      chunkIndex: i,
      chunkCount: args.pieces.length,
      source: args.source,
      tags: args.tags,
      embedding: args.vectors ? args.vectors[i]! : null,
      embeddingModel: model,
      contentHash: args.hash,
      createdAt: args.createdAt,
      updatedAt: args.updatedAt,
      expiresAt: args.expiresAt,
      accessCount: args.carry?.accessCount ?? 0,
      lastAccessedAt: args.carry?.lastAccessedAt ?? null,
      alpha: args.carry?.alpha ?? 1,
      beta: args.carry?.beta ?? 1,
      version: args.carry ? args.carry.version + 1 : 1,
      ...validity,
    }));
  }

  /** The one guard for the short free-text fields (names, tags, keys, intents, notes, task ids). */
  guardLabels(space: string, fields: Parameters<typeof guardFields>[0]): void {
    const policy = personalDataPolicy(this.options.personalData, space);
    // A label is refused rather than redacted: a redacted key or tag would no longer say what the caller meant.
    guardFields(fields, policy === 'allow' ? 'allow' : 'refuse');
  }

  /** Size and the guard of a content; returns the content to store (personal data redacted under that policy). */
  checkContent(space: string, content: string, what = 'content'): string {
    if (content.length > this.options.maxContentChars) {
      throw new MemError(
        'TOO_LARGE',
        `The ${what} is ${content.length} characters long, over the limit of ${this.options.maxContentChars}. Split it into smaller memories (one fact each) or index it as a document.`,
      );
    }
    return guardText(content, what, personalDataPolicy(this.options.personalData, space));
  }
}
