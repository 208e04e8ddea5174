import {
  type CandidateQuery,
  type CandidateSet,
  type KnowledgeReader,
  type KnowledgeSearcher,
  type KnowledgeStoreCapabilities,
  type MemoryRecord,
  type SearchFilter,
  searchCandidatesWith,
} from '@mem/core/adapter';
import type { Row } from '../schema.js';
import { chunked, filterPredicate, rows, sqlIn, sqlString } from '../sql.js';
import { type LanceKnowledgeContext, recordColumns, toRecords } from './context.js';

/**
 * The search role: the full-text index over name + content (BM25) for the keyword arm, the vector column of the query's
 * dimension (exact below the index threshold, approximate above it) for the vector arm, and the neighbouring turns.
 */
export function createSearcher(
  ctx: LanceKnowledgeContext,
  reader: Pick<KnowledgeReader, 'getChunks'>,
): KnowledgeSearcher {
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

  /**
   * Three queries in the common case, whatever the number of ids: the places by id alone (the id index; whether
   * the filter hides a place is told by the window scan, which applies it and always spans the place itself), one
   * scan of the hour around every place of every owner, and the records of the neighbours by id (each was found
   * by a query that applied the filter). A side that reaches the edge of its hour asks for the rest in order.
   */
  function neighbours(filter: SearchFilter, visible: string, ids: string[], radius: number): Promise<MemoryRecord[]> {
    return read('neighbours', async (t) => {
      const space = `space = ${sqlString(filter.space)}`;
      const places: Row[] = [];
      for (const batch of chunked(ids))
        places.push(
          ...(await rows(t.chunks, `${space} AND ${sqlIn('id', batch)}`, undefined, [
            'id',
            'created_at',
            'scope',
            'agent_id',
            'source',
          ])),
        );
      if (places.length === 0) return [];
      const ownerOf = (r: Row) => JSON.stringify([String(r.scope), String(r.agent_id), String(r.source)]);
      const ownerSql = (r: Row) =>
        `scope = ${sqlString(String(r.scope))} AND agent_id = ${sqlString(String(r.agent_id))} AND source = ${sqlString(String(r.source))}`;
      const hour = (p: Row) =>
        `(created_at >= ${sqlString(shifted(p.created_at, -WINDOW_MS))} AND created_at <= ${sqlString(shifted(p.created_at, WINDOW_MS))})`;
      // One scan for the hours around every place, each owner's hours under its own owner condition.
      const groups = new Map<string, Row[]>();
      for (const place of places) {
        const group = groups.get(ownerOf(place));
        if (group) group.push(place);
        else groups.set(ownerOf(place), [place]);
      }
      const around = [...groups.values()].map((g) => `(${ownerSql(g[0]!)} AND (${g.map(hour).join(' OR ')}))`);
      const lines = new Map<string, { id: string; at: string }[]>();
      for (const r of await rows(t.chunks, `${visible} AND (${around.join(' OR ')})`, undefined, [
        'id',
        'created_at',
        'scope',
        'agent_id',
        'source',
      ])) {
        const line = lines.get(ownerOf(r)) ?? [];
        line.push({ id: String(r.id), at: String(r.created_at) });
        lines.set(ownerOf(r), line);
      }
      const near = new Set<string>();
      const rest: Promise<void>[] = [];
      for (const [owner, group] of groups) {
        const line = (lines.get(owner) ?? []).sort((a, b) =>
          a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
        );
        for (const place of group) {
          const i = line.findIndex((r) => r.id === String(place.id));
          // Not in its own hour: the filter hides the place.
          if (i < 0) continue;
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
            rest.push(
              (async () => {
                const found = (await t.chunks
                  .query()
                  .where(
                    `${visible} AND ${ownerSql(place)} AND (created_at ${cmp} ${c} OR (created_at = ${c} AND id ${cmp} ${id}))`,
                  )
                  // The sort columns must be selected: with an index-backed filter LanceDB 0.31 fails to plan
                  // an ordered query whose projection lacks them ("TakeExec requires … '_rowid'").
                  .select(['id', 'created_at'])
                  .orderBy([
                    { columnName: 'created_at', ascending },
                    { columnName: 'id', ascending },
                  ])
                  .limit(radius)
                  .toArray()) as Row[];
                for (const r of found) near.add(String(r.id));
              })(),
            );
          }
        }
      }
      await Promise.all(rest);
      const found: Row[] = [];
      const columns = await recordColumns(t);
      for (const batch of chunked([...near]))
        found.push(...(await rows(t.chunks, `${space} AND ${sqlIn('id', batch)}`, undefined, columns)));
      return toRecords(t, found);
    });
  }

  return {
    capabilities,

    searchCandidates(query: CandidateQuery): Promise<CandidateSet> {
      // The filter as one Lance predicate, built once for the search's scans.
      const visible = filterPredicate(query.filter);
      return searchCandidatesWith(query, {
        keyword: (terms, limit) =>
          runner.readFresh('keywordSearch', (t) => t.upkeep.chunks.keywordSearch(terms, visible, limit)),
        vector: (vector, limit) => read('vectorSearch', (t) => t.upkeep.chunks.vectorSearch(vector, visible, limit)),
        rows: (ids) => reader.getChunks(query.filter.space, ids),
        neighbours: (ids, radius) => neighbours(query.filter, visible, ids, radius),
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
