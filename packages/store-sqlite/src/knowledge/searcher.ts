import type * as K from '@mem/core/adapter';
import { clampSimilarity, cosine, searchCandidatesWith } from '@mem/core/adapter';
import { KW_DOCS, KW_TOKENS } from '../keyword/index.js';
import { exactScores, maxScoreSearch } from '../keyword/search.js';
import { FILTER_INDEX } from '../search-indexes.js';
import type { SqliteKnowledgeContext } from './context.js';
import { blobToVector, type ChunkRow, COLUMNS, rowToRecord, vectorToBlob } from './rows.js';

/** Quote one term as an FTS5 string ("..." with inner quotes doubled): no FTS5 operator can leak in. */
export function ftsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** The distinct search terms, cleaned, in order: each is one FTS5 phrase. */
export function matchTerms(terms: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const term of terms) {
    // NUL cannot appear inside an FTS5 string; it separates nothing a user typed.
    const clean = term.replaceAll('\u0000', ' ').trim();
    if (clean !== '') seen.add(clean);
  }
  return [...seen];
}

/** OR the terms as FTS5 strings; null when nothing is left to search for. */
export function buildMatchExpression(terms: readonly string[]): string | null {
  const seen = matchTerms(terms);
  if (seen.length === 0) return null;
  return seen.map(ftsString).join(' OR ');
}

/**
 * The WHERE clause every search arm shares (alias `c` for chunks), with its parameters appended to `params`.
 * Space, visibility, expiry, then the optional scope, key prefix, tags and source, then the user and the world time
 * (docs/formation.md) — all before any LIMIT.
 */
export function filterClause(filter: K.SearchFilter, params: unknown[]): string {
  const parts = [
    'c.space = ?',
    "(c.scope = 'swarm' OR (c.scope = 'agent' AND c.agent_id = ?))",
    '(c.expires_at IS NULL OR c.expires_at > ?)',
  ];
  params.push(filter.space, filter.viewerAgentId, filter.now);
  if (filter.scope !== undefined) {
    parts.push('c.scope = ?');
    params.push(filter.scope);
  }
  if (filter.keyPrefix !== undefined && filter.keyPrefix !== '') {
    // Literal and case-sensitive: no LIKE wildcards, no case folding.
    parts.push('substr(c.key, 1, length(?)) = ?');
    params.push(filter.keyPrefix, filter.keyPrefix);
  }
  if (filter.tags !== undefined) {
    for (const tag of new Set(filter.tags)) {
      parts.push('EXISTS (SELECT 1 FROM chunk_tags t WHERE t.chunk_rid = c.rid AND t.tag = ?)');
      params.push(tag);
    }
  }
  if (filter.source !== undefined) {
    parts.push('c.source = ?');
    params.push(filter.source);
  }
  // A memory about a user is seen only by a search for that user.
  if (filter.userId === undefined) parts.push('c.user_id IS NULL');
  else {
    parts.push('(c.user_id IS NULL OR c.user_id = ?)');
    params.push(filter.userId);
  }
  // World time: what is current (not ended by now), what held at `asOf`, or everything.
  if (filter.history !== true) {
    parts.push('(c.valid_to IS NULL OR c.valid_to > ?)');
    params.push(filter.asOf ?? filter.now);
    if (filter.asOf !== undefined) {
      parts.push('coalesce(c.valid_from, c.created_at) <= ?');
      params.push(filter.asOf);
    }
  }
  return parts.join(' AND ');
}

/** A search filter compiled once: its WHERE clause (alias `c`) and the parameters it binds, in order. */
export interface CompiledFilter {
  filter: K.SearchFilter;
  where: string;
  params: readonly unknown[];
}

export function compileFilter(filter: K.SearchFilter): CompiledFilter {
  const params: unknown[] = [];
  const where = filterClause(filter, params);
  return { filter, where, params };
}

/**
 * The search role: FTS5 for the keyword arm, sqlite-vec's exact cosine (or the trained approximate index) for the vector
 * arm, a JavaScript cosine over the same filtered rows when the extension cannot load, and the neighbouring turns.
 */
export function createSearcher(
  ctx: SqliteKnowledgeContext,
  reader: Pick<K.KnowledgeReader, 'getChunks'>,
): K.KnowledgeSearcher {
  const { stmt, run } = ctx;

  const capabilities: K.KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    // FTS5's bm25(): k1 = 1.2, b = 0.75.
    keywordLengthNorm: { kind: 'bm25', k1: 1.2, b: 0.75 },
    /** Exact until the approximate vector index is trained (then its recall is measured, not guaranteed). */
    get exactVector() {
      return !ctx.indexTrained();
    },
  };

  /**
   * The keyword arm on the pruned index (keyword/search.ts), or null when FTS5 must answer: the index is behind
   * (writes by another program not yet applied), a term is not one token, or the filter names tags, a source or
   * a key prefix (those filters can hide most of a partition; FTS5 with the filter index handles them).
   */
  function prunedKeywordSearch(
    terms: readonly string[],
    compiled: CompiledFilter,
    limit: number,
  ): K.KeywordHit[] | null {
    const { filter } = compiled;
    const index = ctx.keywordIndex;
    if (index === null || !ctx.prunedKeyword) return null;
    if (filter.tags !== undefined || filter.source !== undefined || (filter.keyPrefix ?? '') !== '') return null;
    if (!index.current()) return null;
    const phrases = index.queryTokens(matchTerms(terms));
    if (phrases.some((p) => p === null)) return null;
    // Who the viewer sees: the swarm (owner 0) and its own chunks (its code), narrowed by a scope filter.
    const owners: number[] = [];
    if (filter.scope !== 'agent') owners.push(0);
    const own = index.ownerCode(filter.viewerAgentId);
    if (filter.scope !== 'swarm' && own !== undefined) owners.push(own);
    if (owners.length === 0) return [];
    const meta = stmt('SELECT key, value FROM meta WHERE key IN (?, ?)').all(KW_DOCS, KW_TOKENS) as {
      key: string;
      value: string;
    }[];
    const stats = { docs: 0, tokens: 0 };
    for (const m of meta) stats[m.key === KW_DOCS ? 'docs' : 'tokens'] = Number(m.value);
    const exclude = new Set<number>();
    // Space and visibility are settled by the postings; expiry (rare) is checked on the chunks picked, and a chunk
    // that fails it is left out of another pass.
    const postingsOf = index.postingsReader(filter.space);
    for (let pass = 0; pass < 4; pass++) {
      const top = maxScoreSearch(stmt, postingsOf, owners, phrases as string[], stats, limit, exclude);
      if (top.length === 0) return [];
      const rows = stmt(
        `SELECT c.rid AS rid, c.id AS id FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value WHERE ${compiled.where}`,
      ).all(JSON.stringify(top.map((t) => t.rid)), ...compiled.params) as { rid: number; id: string }[];
      if (rows.length === top.length) {
        const scores = exactScores(
          stmt,
          top.map((t) => t.rid),
          phrases as string[],
          stats,
        );
        const ids = new Map(rows.map((r) => [r.rid, r.id]));
        const hits = top.map((t) => ({ rid: t.rid, id: ids.get(t.rid)!, score: scores.get(t.rid) ?? t.score }));
        hits.sort((a, b) => b.score - a.score || a.rid - b.rid);
        return hits.map((h) => ({ id: h.id, score: h.score }));
      }
      const passed = new Set(rows.map((r) => r.rid));
      for (const t of top) if (!passed.has(t.rid)) exclude.add(t.rid);
    }
    return null;
  }

  function keywordArm(f: CompiledFilter, terms: string[], limit: number): K.KeywordHit[] {
    const match = buildMatchExpression(terms);
    if (match === null) return [];
    const pruned = prunedKeywordSearch(terms, f, limit);
    if (pruned !== null) return pruned;
    // FTS5 first indexes the rows written since it last answered (writes leave that to it, see migrations).
    ctx.catchUpFts();
    const rows = stmt(
      `SELECT c.id AS id, bm25(chunks_fts) AS bm
       FROM chunks_fts CROSS JOIN chunks c ${ctx.filterIndex ? `INDEXED BY ${FILTER_INDEX}` : ''} ON c.rid = chunks_fts.rowid
       WHERE chunks_fts MATCH ? AND ${f.where}
       ORDER BY bm, c.rid LIMIT ?`,
    ).all(match, ...f.params, limit) as { id: string; bm: number }[];
    // CROSS JOIN keeps the FTS index as the outer loop (otherwise the planner may walk every chunk of the
    // space and run one full-text lookup per row). The filter index covers the join (see search-indexes.ts).
    // bm25() is lower-is-better; the port wants higher-is-better.
    return rows.map((row) => ({ id: row.id, score: -row.bm }));
  }

  function vectorArm(f: CompiledFilter, vector: Float32Array, limit: number): K.VectorHit[] {
    const blob = vectorToBlob(vector);
    if (ctx.vectorIndex) {
      const hits = ctx.vectorIndex.search(vector, limit, f.filter, filterClause);
      if (hits !== null) return hits.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
    }
    if (ctx.nativeVector) {
      // A zero vector has no direction: sqlite-vec gives NULL, scored as similarity 0 (distance 1).
      const rows = stmt(
        `SELECT c.id AS id, coalesce(vec_distance_cosine(c.embedding, ?), 1.0) AS d
         FROM chunks c
         WHERE ${f.where} AND c.embedding IS NOT NULL AND length(c.embedding) = ?
         ORDER BY d, c.rid LIMIT ?`,
      ).all(blob, ...f.params, blob.byteLength, limit) as { id: string; d: number }[];
      return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
    }
    const rows = stmt(
      `SELECT c.id AS id, c.embedding AS embedding
       FROM chunks c
       WHERE ${f.where} AND c.embedding IS NOT NULL AND length(c.embedding) = ?
       ORDER BY c.rid`,
    ).all(...f.params, blob.byteLength) as { id: string; embedding: Buffer }[];
    const scored = rows.map((row) => ({
      id: row.id,
      similarity: clampSimilarity(cosine(vector, blobToVector(row.embedding))),
    }));
    // Stable sort keeps rid order among ties, as the SQL path does.
    scored.sort((a, b) => b.similarity - a.similarity);
    return scored.slice(0, limit);
  }

  function neighbourArm(f: CompiledFilter, ids: string[], radius: number): K.MemoryRecord[] {
    // Where each visible id sits: one statement for all of them.
    const places = stmt(
      `SELECT c.id AS id, c.created_at AS created_at, c.scope AS scope, c.agent_id AS agent_id, c.source AS source
       FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value WHERE ${f.where}`,
    ).all(JSON.stringify(ids), ...f.params) as {
      id: string;
      created_at: string;
      scope: string;
      agent_id: string;
      source: string;
    }[];
    if (places.length === 0) return [];
    const side = (cmp: '<' | '>', order: 'ASC' | 'DESC') =>
      `SELECT rid FROM (SELECT c.rid AS rid FROM chunks c
         WHERE ${f.where} AND c.scope = ? AND c.agent_id = ? AND c.source = ? AND (c.created_at, c.id) ${cmp} (?, ?)
         ORDER BY c.created_at ${order}, c.id ${order} LIMIT ?)`;
    // Then the owner's time order (chunks_owner_time) walked outwards both ways from each: one statement, row ids only.
    const params: unknown[] = [];
    const arms: string[] = [];
    for (const at of places)
      for (const [cmp, order] of [
        ['<', 'DESC'],
        ['>', 'ASC'],
      ] as const) {
        arms.push(side(cmp, order));
        params.push(...f.params, at.scope, at.agent_id, at.source, at.created_at, at.id, radius);
      }
    const rids = new Set((stmt(arms.join(' UNION ALL ')).all(...params) as { rid: number }[]).map((r) => r.rid));
    if (rids.size === 0) return [];
    const rows = stmt(`SELECT ${COLUMNS} FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value`).all(
      JSON.stringify([...rids]),
    ) as ChunkRow[];
    return rows.map(rowToRecord);
  }

  return {
    capabilities,

    searchCandidates(query: K.CandidateQuery): Promise<K.CandidateSet> {
      const f = compileFilter(query.filter);
      return searchCandidatesWith(query, {
        keyword: (terms, limit) => run('keywordSearch', () => keywordArm(f, terms, limit)),
        vector: (vector, limit) => run('vectorSearch', () => vectorArm(f, vector, limit)),
        rows: (ids) => reader.getChunks(f.filter.space, ids),
        neighbours: (ids, radius) => run('neighbours', () => neighbourArm(f, ids, radius)),
      });
    },
  };
}
