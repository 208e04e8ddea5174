import {
  clampSimilarity,
  type KeywordHit,
  type KeywordQuery,
  type KnowledgeSearcher,
  type KnowledgeStoreCapabilities,
  type MemoryRecord,
  type NeighbourQuery,
  type VectorHit,
  type VectorQuery,
} from '@mem/core/adapter';
import { exec } from '../connection.js';
import { hnswSettings, keywordQuery, neighbourQuery, termsText, vectorQuery } from '../queries.js';
import { MAX_HNSW_DIMENSIONS, vectorLiteral } from '../vectors.js';
import type { PgKnowledgeContext } from './context.js';
import { type ChunkRow, COLUMNS, rowToRecord } from './rows.js';

/**
 * The search role: a generated `tsvector` (english) with a GIN index for the keyword arm, pgvector's HNSW cosine index
 * (one per dimension, exact form when it stops short) for the vector arm, and the neighbouring turns.
 */
export function createSearcher(pg: PgKnowledgeContext): KnowledgeSearcher {
  const { sql, run, hnswEfSearch, queryContext: ctx } = pg;

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    exactVector: false,
    // ts_rank_cd with normalisation 1 (queries.ts): divided by 1 + ln(length).
    keywordLengthNorm: { kind: 'log' },
  };

  return {
    capabilities,

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return run('keywordSearch', async () => {
        const limit = Math.floor(query.limit);
        const text = termsText(query.terms);
        if (text === '' || !(limit > 0)) return [];
        const q = keywordQuery(ctx(), query.filter, text, limit);
        const rows = await exec<{ id: string; score: number }[]>(sql, q.text, q.params);
        return rows.map((row) => ({ id: row.id, score: Number(row.score) }));
      });
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return run('vectorSearch', async () => {
        const limit = Math.floor(query.limit);
        const dims = query.vector.length;
        if (dims === 0 || !(limit > 0)) return [];
        const literal = vectorLiteral(query.vector);
        const search = async (approximate: boolean) => {
          const q = vectorQuery(ctx(), query.filter, literal, dims, limit, approximate);
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
      });
    },

    neighbours(query: NeighbourQuery): Promise<MemoryRecord[]> {
      return run('neighbours', async () => {
        const radius = Math.floor(query.radius);
        if (query.ids.length === 0 || !(radius > 0)) return [];
        const q = neighbourQuery(ctx(), query.filter, query.ids, radius, COLUMNS);
        return (await exec<ChunkRow[]>(sql, q.text, q.params)).map(rowToRecord);
      });
    },
  };
}
