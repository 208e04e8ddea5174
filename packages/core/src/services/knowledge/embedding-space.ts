/** The embedding space of a knowledge service: the store's recorded embedder, checked against the stack's. */
import { MemError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Embedder } from '../../ports/embedder.js';
import type { KnowledgeAdmin } from '../../ports/knowledge-store.js';
import type { EmbeddingInfo } from '../../types.js';

/**
 * How long a match between the store's recorded embedder and the stack's is trusted before the store is asked again
 * (docs/writing.md): a store re-embedded by another process is noticed within this time.
 */
export const EMBEDDING_INFO_TTL_MS = 5_000;

/**
 * Refuses to mix vector spaces: the store's recorded embedder must be the stack's (docs/writing.md). The store is read
 * once and the match kept for `EMBEDDING_INFO_TTL_MS` on the stack's clock; a mismatch is never kept (the next vector
 * operation reads again, so a `mem reindex` elsewhere is seen at once), what this service records itself (`record`)
 * replaces the kept answer, and a vector call that fails or meets vectors of another length reads again at once
 * (`guard`). One per service, so one per stack.
 */
export class EmbeddingSpace {
  /** Clock time (ms) when the store's embedder last matched ours; undefined when it must be read again. */
  private matchedAt: number | undefined;

  constructor(
    private readonly store: Pick<KnowledgeAdmin, 'getEmbeddingInfo' | 'setEmbeddingInfo'>,
    private readonly embedder: Embedder,
    private readonly clock: Clock,
  ) {}

  private get info(): EmbeddingInfo {
    return { model: this.embedder.id, dimension: this.embedder.dimension };
  }

  /** True while a kept match holds (no store read needed before using vectors). */
  fresh(): boolean {
    const now = this.clock.now().getTime();
    const at = this.matchedAt;
    return at !== undefined && now >= at && now - at < EMBEDDING_INFO_TTL_MS;
  }

  /** Resolves when the store's vectors are ours (recording ours when it has none yet); EMBEDDING_MISMATCH otherwise. */
  async ensure(): Promise<void> {
    if (this.fresh()) return;
    const now = this.clock.now().getTime();
    this.matchedAt = undefined;
    const stored = await this.store.getEmbeddingInfo();
    if (stored === null) {
      await this.record(this.info);
      return;
    }
    if (stored.model !== this.embedder.id || stored.dimension !== this.embedder.dimension) {
      throw new MemError(
        'EMBEDDING_MISMATCH',
        `The store's vectors came from embedder "${stored.model}" (${stored.dimension} dimensions) but this stack uses "${this.embedder.id}" (${this.embedder.dimension} dimensions). Vector spaces never mix: run \`mem reindex\` to re-embed every memory with "${this.embedder.id}", or configure the original embedder.`,
        { details: { stored, current: this.info } },
      );
    }
    this.matchedAt = now;
  }

  /** Forget the kept answer and read the store's embedder now (EMBEDDING_MISMATCH when it is no longer ours). */
  async recheck(): Promise<void> {
    this.matchedAt = undefined;
    await this.ensure();
  }

  /**
   * Run a store call that carries or returns vectors of this space. When it fails, or `foreign` finds vectors of
   * another length in its answer, the kept answer may be stale (another process re-embedded the store within the
   * time-to-live): the store's embedder is read again at once, so such a change is refused with EMBEDDING_MISMATCH
   * rather than reported as the engine's error or mixed in. Otherwise the call's own error or answer stands, as does an
   * error `notTheStores` claims (the query's embedder failing inside the call).
   */
  async guard<T>(
    call: () => Promise<T>,
    foreign?: (answer: T) => boolean,
    notTheStores?: (error: unknown) => boolean,
  ): Promise<T> {
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      if (notTheStores?.(error)) throw error;
      try {
        await this.recheck();
      } catch (checked) {
        // A changed space explains the failure; any other trouble reading it does not replace the call's own error.
        if (MemError.is(checked, 'EMBEDDING_MISMATCH')) throw checked;
      }
      throw error;
    }
    if (foreign?.(answer)) await this.recheck();
    return answer;
  }

  /** Record `info` as the store's embedder (first vector, or after re-embedding) and keep the answer. */
  async record(info: EmbeddingInfo): Promise<void> {
    this.matchedAt = undefined;
    await this.store.setEmbeddingInfo(info);
    const ours = info.model === this.embedder.id && info.dimension === this.embedder.dimension;
    this.matchedAt = ours ? this.clock.now().getTime() : undefined;
  }
}
