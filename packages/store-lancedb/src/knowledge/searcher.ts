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
import { chunked, filterPredicate, rows, sqlIn, sqlString } from '../sql.js';
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
        const ids = [...new Set(query.ids)];
        if (!(radius > 0) || ids.length === 0) return [];
        const visible = filterPredicate(query.filter);
        const places = await rows(t.chunks, `${visible} AND ${sqlIn('id', ids)}`, undefined, [
          'id',
          'created_at',
          'scope',
          'agent_id',
          'source',
        ]);
        const near = new Set<string>();
        const owners = new Map<string, Row[]>();
        for (const place of places) {
          const owner = `${visible} AND scope = ${sqlString(String(place.scope))} AND agent_id = ${sqlString(String(place.agent_id))} AND source = ${sqlString(String(place.source))}`;
          const group = owners.get(owner);
          if (group) group.push(place);
          else owners.set(owner, [place]);
        }
        for (const [owner, group] of owners) {
          // One scan for the hour around each place of this owner; a side that reaches the edge of its hour asks the
          // store for the rest in order (a scan sorted by time), which is rare: turns of one exchange are close.
          const hours = group.map(
            (p) =>
              `(created_at >= ${sqlString(shifted(p.created_at, -WINDOW_MS))} AND created_at <= ${sqlString(shifted(p.created_at, WINDOW_MS))})`,
          );
          const line = (await rows(t.chunks, `${owner} AND (${hours.join(' OR ')})`, undefined, ['id', 'created_at']))
            .map((r) => ({ id: String(r.id), at: String(r.created_at) }))
            .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          for (const place of group) {
            const i = line.findIndex((r) => r.id === String(place.id));
            const before = line.slice(Math.max(0, i - radius), i);
            const after = line.slice(i + 1, i + 1 + radius);
            for (const r of [...before, ...after]) near.add(r.id);
            const c = sqlString(String(place.created_at));
            const id = sqlString(String(place.id));
            for (const [side, cmp, ascending] of [
              [before, '<', false],
              [after, '>', true],
            ] as const) {
              if (side.length === radius) continue;
              const rest = (await t.chunks
                .query()
                .where(`${owner} AND (created_at ${cmp} ${c} OR (created_at = ${c} AND id ${cmp} ${id}))`)
                .select(['id'])
                .orderBy([
                  { columnName: 'created_at', ascending },
                  { columnName: 'id', ascending },
                ])
                .limit(radius)
                .toArray()) as Row[];
              for (const r of rest) near.add(String(r.id));
            }
          }
        }
        const found: Row[] = [];
        for (const batch of chunked([...near]))
          found.push(...(await rows(t.chunks, `${visible} AND ${sqlIn('id', batch)}`)));
        return toRecords(t, found);
      });
    },
  };
}

/** The window scanned around each place of the neighbours lookup. */
const WINDOW_MS = 3_600_000;

/** An ISO time moved by `ms`, as ISO text (stored times compare as text). */
function shifted(iso: unknown, ms: number): string {
  const t = Date.parse(String(iso));
  return Number.isFinite(t) ? new Date(t + ms).toISOString() : String(iso);
}
