import {
  type CandidateQuery,
  type CandidateSet,
  clampSimilarity,
  type KnowledgeReader,
  type KnowledgeSearcher,
  type KnowledgeStoreCapabilities,
  searchCandidatesWith,
  type VectorHit,
} from '@mem/core/adapter';
import { exec } from '../connection.js';
import {
  type CompiledFilter,
  compileFilter,
  hnswSettings,
  keywordQuery,
  neighbourQuery,
  termsText,
  vectorQuery,
} from '../queries.js';
import { MAX_HNSW_DIMENSIONS, vectorLiteral } from '../vectors.js';
import type { PgKnowledgeContext } from './context.js';
import { type ChunkRow, COLUMNS, rowToRecord } from './rows.js';

/**
 * The search role: a generated `tsvector` (english) with a GIN index for the keyword arm, pgvector's HNSW cosine index
 * (one per dimension, exact form when it stops short) for the vector arm, and the neighbouring turns.
 */
export function createSearcher(pg: PgKnowledgeContext, reader: Pick<KnowledgeReader, 'getChunks'>): KnowledgeSearcher {
  const { sql, run, hnswEfSearch, queryContext: ctx } = pg;

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    exactVector: false,
    // ts_rank_cd with normalisation 1 (queries.ts): divided by 1 + ln(length).
    keywordLengthNorm: { kind: 'log' },
  };

  async function vectorArm(f: CompiledFilter, vector: Float32Array, limit: number): Promise<VectorHit[]> {
    const dims = vector.length;
    const literal = vectorLiteral(vector);
    const search = async (approximate: boolean) => {
      const q = vectorQuery(ctx(), f, literal, dims, limit, approximate);
      if (!approximate) return exec<{ id: string; distance: number }[]>(sql, q.text, q.params);
      const [, rows] = await sql.begin((tx) => [
        exec(tx, hnswSettings(Math.max(hnswEfSearch, limit * 2), pg.iterativeScan)),
        exec<{ id: string; distance: number }[]>(tx, q.text, q.params),
      ]);
      return rows;
    };
    const indexable = dims <= MAX_HNSW_DIMENSIONS;
    let rows = await search(indexable);
    // An approximate index scan may stop short of `limit` rows that pass the filters; the filtered set is then
    // small, so the exact form is cheap and correct.
    if (indexable && rows.length < limit) rows = await search(false);
    return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - Number(row.distance)) }));
  }

  return {
    capabilities,

    searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
      // One filter for the search's three statements (its parameters are $1…$n of each).
      const f = compileFilter(query.filter);
      return searchCandidatesWith(query, {
        keyword: (terms, limit) =>
          run('keywordSearch', async () => {
            const text = termsText(terms);
            if (text === '') return [];
            const q = keywordQuery(ctx(), f, text, limit);
            const rows = await exec<{ id: string; score: number }[]>(sql, q.text, q.params);
            return rows.map((row) => ({ id: row.id, score: Number(row.score) }));
          }),
        vector: (vector, limit) => run('vectorSearch', () => vectorArm(f, vector, limit)),
        rows: (ids) => reader.getChunks(query.filter.space, ids),
        neighbours: (ids, radius) =>
          run('neighbours', async () => {
            const q = neighbourQuery(ctx(), f, ids, radius, COLUMNS);
            return (await exec<ChunkRow[]>(sql, q.text, q.params)).map(rowToRecord);
          }),
      });
    },
  };
}
