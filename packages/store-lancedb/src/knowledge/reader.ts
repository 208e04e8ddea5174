import type { HashLookup, KnowledgeReader, ScanOptions } from '@mem/core/adapter';
import { ReadGroup } from '../read-group.js';
import { type Row, rowToVersion } from '../schema.js';
import { chunked, docPredicate, rows, sqlIn, sqlString, wellFormed } from '../sql.js';
import { lookupRows } from '../tail-rows.js';
import { type LanceKnowledgeContext, recordColumns, toRecords } from './context.js';
import { readLog } from './formation.js';

/** The read role: chunks, documents, lookups by key and content hash, scans, versions and the decision log. */
export function createReader(ctx: LanceKnowledgeContext): KnowledgeReader {
  const { read } = ctx;

  /**
   * Content-hash lookups of one space, many in one scan: every store asks one before it writes, so concurrent
   * stores would otherwise each scan the table. One query per owner and slice of hashes; per lookup the oldest chunk
   * (created_at, then id) wins.
   */
  const hashLookups = (space: string) => (lookups: readonly HashLookup[]) =>
    read('findDocIdsByHashes', async (t) => {
      const groups = new Map<string, { scope: string; agentId: string; hashes: Set<string> }>();
      for (const l of lookups) {
        const g = JSON.stringify([l.scope, l.agentId]);
        let group = groups.get(g);
        if (!group) groups.set(g, (group = { scope: l.scope, agentId: l.agentId, hashes: new Set() }));
        group.hashes.add(l.contentHash);
      }
      const best = new Map<string, { docId: string; createdAt: string; id: string }>();
      for (const [g, group] of groups) {
        const [inSpace, scope, agentId] = [wellFormed(space), wellFormed(group.scope), wellFormed(group.agentId)];
        for (const slice of chunked([...group.hashes])) {
          const where = `space = ${sqlString(space)} AND scope = ${sqlString(group.scope)} AND agent_id = ${sqlString(group.agentId)} AND ${sqlIn('content_hash', slice)}`;
          const hashes = new Set(slice.map(wellFormed));
          const match = (r: Row) =>
            r.space === inSpace && r.scope === scope && r.agent_id === agentId && hashes.has(String(r.content_hash));
          // Outside the lock: commits may land meanwhile (see `lookupRows`).
          const found = await lookupRows(
            t.chunks,
            t.upkeep.chunks.tail,
            where,
            ['doc_id', 'content_hash', 'created_at', 'id'],
            match,
            false,
          );
          for (const r of found) {
            const k = `${g}\u0000${String(r.content_hash)}`;
            const row = { docId: String(r.doc_id), createdAt: String(r.created_at), id: String(r.id) };
            const seen = best.get(k);
            if (!seen || row.createdAt < seen.createdAt || (row.createdAt === seen.createdAt && row.id < seen.id))
              best.set(k, row);
          }
        }
      }
      return lookups.map(
        (l) => best.get(`${JSON.stringify([l.scope, l.agentId])}\u0000${l.contentHash}`)?.docId ?? null,
      );
    });
  /** One group of waiting lookups per space (a space's group goes once nothing of it is waiting or running). */
  const hashGroups = new Map<string, { group: ReadGroup<HashLookup, string | null>; users: number }>();

  return {
    getChunk(space, id) {
      return read('getChunk', async (t) => {
        const found = await rows(
          t.chunks,
          `space = ${sqlString(space)} AND id = ${sqlString(id)}`,
          1,
          await recordColumns(t),
        );
        const [rec] = await toRecords(t, found);
        return rec ?? null;
      });
    },

    getDocument(space, docId) {
      return read('getDocument', async (t) => {
        const found = await rows(t.chunks, docPredicate(space, docId), undefined, await recordColumns(t));
        const recs = await toRecords(t, found);
        return recs.sort((a, b) => a.chunkIndex - b.chunkIndex);
      });
    },

    getChunks(space, ids) {
      return read('getChunks', async (t) => {
        const unique = [...new Set(ids)];
        const found: Row[] = [];
        const columns = await recordColumns(t);
        for (const batch of chunked(unique))
          found.push(
            ...(await rows(t.chunks, `space = ${sqlString(space)} AND ${sqlIn('id', batch)}`, undefined, columns)),
          );
        const byId = new Map((await toRecords(t, found)).map((r) => [r.id, r]));
        return unique.flatMap((id) => {
          const rec = byId.get(id);
          return rec ? [rec] : [];
        });
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return read('findDocIdByKey', async (t) => {
        const found = await rows(
          t.chunks,
          `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)}`,
          1,
          ['doc_id'],
        );
        return found[0] ? String(found[0].doc_id) : null;
      });
    },

    async findDocIdsByHashes(space, lookups) {
      if (lookups.length === 0) return read('findDocIdsByHashes', async () => []);
      let entry = hashGroups.get(space);
      if (!entry) hashGroups.set(space, (entry = { group: new ReadGroup(hashLookups(space)), users: 0 }));
      entry.users += 1;
      try {
        return await entry.group.submit(lookups);
      } finally {
        entry.users -= 1;
        if (entry.users === 0 && hashGroups.get(space) === entry) hashGroups.delete(space);
      }
    },

    listVersions(space, docId) {
      return read('listVersions', async (t) => {
        const current = await rows(t.chunks, docPredicate(space, docId), 1, ['version']);
        if (current.length === 0) return [];
        const docVersion = Number(current[0]!.version);
        const found = await rows(t.versions, `${docPredicate(space, docId)} AND version < ${docVersion}`);
        // One row per version number: the last written wins (an earlier one is a leftover of a failed attempt).
        const byVersion = new Map<number, Row>();
        for (const r of found) {
          const prev = byVersion.get(Number(r.version));
          if (!prev || Number(r.written_ms) >= Number(prev.written_ms)) byVersion.set(Number(r.version), r);
        }
        return [...byVersion.values()].map(rowToVersion).sort((a, b) => a.version - b.version);
      });
    },

    formationLog(space, memoryIds) {
      return read('formationLog', async (t) => (memoryIds.length === 0 ? [] : readLog(t, space, memoryIds)));
    },

    scan(options: ScanOptions) {
      return read('scan', async (t) => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const where: string[] = [];
        if (options.space !== undefined) where.push(`space = ${sqlString(options.space)}`);
        if (options.after !== undefined) {
          const c = sqlString(options.after.createdAt);
          where.push(`(created_at > ${c} OR (created_at = ${c} AND id > ${sqlString(options.after.id)}))`);
        }
        let q = t.chunks.query().select(await recordColumns(t));
        if (where.length > 0) q = q.where(where.join(' AND '));
        const found = (await q
          .orderBy([
            { columnName: 'created_at', ascending: true },
            { columnName: 'id', ascending: true },
          ])
          .limit(limit)
          .toArray()) as Row[];
        return toRecords(t, found);
      });
    },
  };
}
