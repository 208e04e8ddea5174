import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { InMemoryEpisodeStore } from '../src/adapters/in-memory-candidates.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { MemError } from '../src/errors.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { KeywordHit, KnowledgeStore, VectorHit } from '../src/ports/knowledge-store.js';
import { DEFAULT_CANDIDATE_SEARCH, searchCandidates } from '../src/services/candidate-search.js';
import { DEFAULT_KNOWLEDGE_OPTIONS } from '../src/services/knowledge/index.js';
import { armCandidates, DEFAULT_SEARCH_ARMS, runSearchArms, type SearchArms } from '../src/services/search-arms.js';
import { createStack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };
const embedder = createHashingEmbedder({ dimension: 32 });

/** Arms that record every call, in order, and answer one hit each. */
function recordingArms(overrides: Partial<SearchArms> = {}) {
  const calls: string[] = [];
  const limits: { keyword?: number; vector?: number } = {};
  const terms: string[][] = [];
  const arms: SearchArms = {
    keyword: true,
    embed: async (texts) => {
      calls.push(`embed:${texts.join('|')}`);
      return { vectors: await embedder.embed(texts), usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 } };
    },
    keywordSearch: async (t, n): Promise<KeywordHit[]> => {
      calls.push('keyword');
      terms.push(t);
      limits.keyword = n;
      return [{ id: 'k1', score: 2 }];
    },
    vectorSearch: async (_v, n): Promise<VectorHit[]> => {
      calls.push('vector');
      limits.vector = n;
      return [{ id: 'v1', similarity: 0.5 }];
    },
    ...overrides,
  };
  return { arms, calls, limits, terms };
}

describe('the search arms (one function for knowledge, episode and procedure search)', () => {
  it('fetches candidateMultiplier × limit candidates per arm, at most maxCandidates, at least one', () => {
    expect(armCandidates(5, DEFAULT_SEARCH_ARMS)).toBe(15);
    expect(armCandidates(50, DEFAULT_SEARCH_ARMS)).toBe(100);
    expect(armCandidates(1, { ...DEFAULT_SEARCH_ARMS, candidateMultiplier: 0 })).toBe(1);
    // The knowledge service and the candidate search take their counts from the same defaults.
    for (const key of ['candidateMultiplier', 'maxCandidates', 'maxQueryTerms'] as const) {
      expect(DEFAULT_KNOWLEDGE_OPTIONS[key]).toBe(DEFAULT_SEARCH_ARMS[key]);
      expect(DEFAULT_CANDIDATE_SEARCH[key]).toBe(DEFAULT_SEARCH_ARMS[key]);
    }
  });

  it('asks for the embedding (once), runs the keyword arm while it is computed, the vector arm after; reports which ran and the cost', async () => {
    const { arms, calls, limits } = recordingArms();
    const hits = await runSearchArms('deploy freeze friday', 4, DEFAULT_SEARCH_ARMS, arms);
    // The embedder is called before the keyword arm, so that one working elsewhere (a thread, a service) is busy
    // while a keyword search that runs on this thread does.
    expect(calls).toEqual(['embed:deploy freeze friday', 'keyword', 'vector']);
    expect(limits).toEqual({ keyword: 12, vector: 12 });
    expect(hits.ran).toEqual({ keyword: true, vector: true });
    expect(hits.keywordHits.map((h) => h.id)).toEqual(['k1']);
    expect(hits.vectorHits.map((h) => h.id)).toEqual(['v1']);
    expect(hits.vector).toHaveLength(32);
    expect(hits.usage.totalTokens).toBe(3);
  });

  it('keeps at most maxQueryTerms terms and skips the keyword arm without terms or store support', async () => {
    const many = Array.from({ length: 20 }, (_, i) => `term${i}word`).join(' ');
    const capped = recordingArms();
    await runSearchArms(many, 2, { ...DEFAULT_SEARCH_ARMS, maxQueryTerms: 5 }, capped.arms);
    expect(capped.terms[0]).toHaveLength(5);

    const noKeyword = recordingArms({ keyword: false });
    const hits = await runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, noKeyword.arms);
    expect(noKeyword.calls).not.toContain('keyword');
    expect(hits.ran).toEqual({ keyword: false, vector: true });

    const noTerms = recordingArms();
    expect((await runSearchArms('?! …', 2, DEFAULT_SEARCH_ARMS, noTerms.arms)).ran.keyword).toBe(false);
    expect(noTerms.calls).not.toContain('keyword');
  });

  it('skips the vector arm without an embedding, spending nothing', async () => {
    const absent = recordingArms({ embed: undefined });
    const hits = await runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, absent.arms);
    expect(absent.calls).toEqual(['keyword']);
    expect(hits).toMatchObject({ ran: { keyword: true, vector: false }, vector: undefined, vectorHits: [] });
    expect(hits.usage.totalTokens).toBe(0);

    const declined = recordingArms({ embed: async () => null });
    expect((await runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, declined.arms)).ran.vector).toBe(false);
    expect(declined.calls).toEqual(['keyword']);
  });

  it('returns nothing when the embedder fails: its error is the one the caller gets, even if the keyword arm failed too', async () => {
    const embedderDown = async () => {
      throw new MemError('EMBEDDER_FAILED', 'the embedder is down', { retryable: true });
    };
    const failing = recordingArms({ embed: embedderDown });
    await expect(runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, failing.arms)).rejects.toMatchObject({
      code: 'EMBEDDER_FAILED',
    });
    expect(failing.calls).toEqual(['keyword']);

    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const both = recordingArms({
        embed: embedderDown,
        keywordSearch: async () => {
          throw new MemError('STORE_UNAVAILABLE', 'the store is down');
        },
      });
      await expect(runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, both.arms)).rejects.toMatchObject({
        code: 'EMBEDDER_FAILED',
      });
      // Let any unhandled rejection surface before looking.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('fails with the store error when the keyword arm fails and the embedder works', async () => {
    const broken = recordingArms({
      keywordSearch: async () => {
        throw new MemError('STORE_UNAVAILABLE', 'the store is down');
      },
    });
    await expect(runSearchArms('deploy freeze', 2, DEFAULT_SEARCH_ARMS, broken.arms)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('the knowledge search and the episode search ask their stores for the same candidate counts', async () => {
    const asked: Record<string, number[]> = { knowledge: [], episodeKeyword: [] };
    const inner = createInMemoryKnowledgeStore();
    const store: KnowledgeStore = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'searchCandidates')
          return (q: Parameters<KnowledgeStore['searchCandidates']>[0]) => {
            asked.knowledge!.push(q.limit);
            return target.searchCandidates(q);
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const stack = createStack({ knowledge: store, embedder, knowledgeOptions: { maxCandidates: 20 } });
    await stack.knowledge.store(alice, { content: 'Deploys freeze on Fridays after 15:00.' });
    const [hit] = await stack.knowledge.search(alice, { query: 'deploy friday', limit: 4 });
    expect(hit?.content).toContain('Deploys freeze');
    await stack.knowledge.search(alice, { query: 'deploy friday', limit: 9 });

    const episodes = new InMemoryEpisodeStore();
    const keywordSearch = episodes.keywordSearch.bind(episodes);
    episodes.keywordSearch = async (space, terms, limit) => {
      asked.episodeKeyword!.push(limit);
      return keywordSearch(space, terms, limit);
    };
    const options = { ...DEFAULT_CANDIDATE_SEARCH, maxCandidates: 20 };
    for (const topK of [4, 9])
      await searchCandidates(episodes, embedder as Embedder, 'acme', 'deploy friday', topK, options);

    expect(asked.knowledge).toEqual([12, 20]);
    expect(asked.episodeKeyword).toEqual([12, 20]);
  });
});
