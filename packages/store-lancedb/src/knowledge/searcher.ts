import type {
  KeywordHit,
  KeywordQuery,
  KnowledgeSearcher,
  KnowledgeStoreCapabilities,
  NeighbourQuery,
  VectorHit,
  VectorQuery,
} from '@mem/core/adapter';
import type { Row } from '../schema.js';
import { filterPredicate, rows, sqlString } from '../sql.js';
import { type LanceKnowledgeContext, toRecords } from './context.js';

/**
 * The search role: the full-text index over name + content (BM25) for the keyword arm, the vector column of the query's
 * dimension (exact below the index threshold, approximate above it) for the vector arm, and the neighbouring turns.
 */
export function createSearcher(ctx: LanceKnowledgeContext): KnowledgeSearcher {
  const { runner, read, settings } = ctx;

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: settings.fts,
    vector: true,
    // Lance's full-text index scores with BM25, k1 = 1.2, b = 0.75.
    keywordLengthNorm: { kind: 'bm25', k1: 1.2, b: 0.75 },
    get exactVector() {
      return runner.current?.upkeep.chunks.exactVector ?? true;
    },
  };

  return {
    capabilities,

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return runner.readFresh('keywordSearch', (t) =>
        t.upkeep.chunks.keywordSearch(query.terms, filterPredicate(query.filter), query.limit),
      );
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return read('vectorSearch', (t) =>
        t.upkeep.chunks.vectorSearch(query.vector, filterPredicate(query.filter), query.limit),
      );
    },

    neighbours(query: NeighbourQuery) {
      return read('neighbours', async (t) => {
        const radius = Math.floor(query.radius);
        if (!(radius > 0)) return [];
        const visible = filterPredicate(query.filter);
        const found = new Map<string, Row>();
        for (const id of new Set(query.ids)) {
          const [at] = await rows(t.chunks, `${visible} AND id = ${sqlString(id)}`, 1, [
            'created_at',
            'scope',
            'agent_id',
            'source',
          ]);
          if (!at) continue;
          const owner = `${visible} AND scope = ${sqlString(String(at.scope))} AND agent_id = ${sqlString(String(at.agent_id))} AND source = ${sqlString(String(at.source))}`;
          const c = sqlString(String(at.created_at));
          const i = sqlString(id);
          for (const [cmp, ascending] of [
            ['<', false],
            ['>', true],
          ] as const) {
            const side = (await t.chunks
              .query()
              .where(`${owner} AND (created_at ${cmp} ${c} OR (created_at = ${c} AND id ${cmp} ${i}))`)
              .orderBy([
                { columnName: 'created_at', ascending },
                { columnName: 'id', ascending },
              ])
              .limit(radius)
              .toArray()) as Row[];
            for (const row of side) found.set(String(row.id), row);
          }
        }
        return toRecords(t, [...found.values()]);
      });
    },
  };
}
