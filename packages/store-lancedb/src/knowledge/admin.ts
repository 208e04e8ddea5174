import type { EmbeddingInfo, KnowledgeAdmin, KnowledgeStats } from '@mem/core/adapter';
import { ADAPTER } from '../database.js';
import type { LanceKnowledgeStore } from '../knowledge-store.js';
import { optimizeTables } from '../optimize-tables.js';
import { baseOf, type Row, recordToRow, rowToRecord } from '../schema.js';
import { chunked, rows, sqlIn, sqlString } from '../sql.js';
import { type LanceKnowledgeContext, META_DIMENSION, META_MODEL, metaPut, plainTables } from './context.js';

/**
 * The admin role: the embedder of the stored vectors (kept while the meta table does not change), re-embedding,
 * statistics, table upkeep (`optimize`, `indexState`), opening and closing.
 */
export function createAdmin(
  ctx: LanceKnowledgeContext,
): KnowledgeAdmin & Pick<LanceKnowledgeStore, 'ready' | 'optimize' | 'indexState'> {
  const { uri, runner, read, write } = ctx;

  /** The embedding info as last read, with the meta table version it was read at. */
  let embeddingInfoCache: { version: number; info: EmbeddingInfo | null } | null = null;

  return {
    name: ADAPTER,

    async ready() {
      await read(`opening ${uri}`, async () => undefined);
    },

    updateEmbeddings(updates, info) {
      return write(
        'updateEmbeddings',
        async (t) => {
          if (updates.length > 0) {
            const columns = await t.upkeep.chunks.ensureVectorColumns(updates.map((u) => u.embedding.length));
            const byId = new Map(updates.map((u) => [u.id, u.embedding]));
            const data: Row[] = [];
            for (const batch of chunked([...byId.keys()])) {
              for (const row of await rows(t.chunks, sqlIn('id', batch))) {
                const rec = rowToRecord(row);
                rec.embedding = byId.get(rec.id) ?? rec.embedding;
                rec.embeddingModel = info.model;
                data.push(recordToRow(rec, columns, { ...baseOf(row), version: rec.version }));
              }
            }
            // One commit for the batch; every other vector column of these rows is cleared.
            if (data.length > 0) await t.chunks.mergeInsert(['space', 'id']).whenMatchedUpdateAll().execute(data);
          }
          await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
        },
        (t) => [t.upkeep.chunks, t.upkeep.meta],
      );
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return read('stats', async (t) => {
        const chunks = await t.chunks.countRows(`space = ${sqlString(space)}`);
        const docs = await rows(t.chunks, `space = ${sqlString(space)} AND chunk_index = 0`, undefined, [
          'source',
          'scope',
        ]);
        const bySource: Record<string, number> = {};
        const byScope: Record<string, number> = {};
        for (const r of docs) {
          bySource[String(r.source)] = (bySource[String(r.source)] ?? 0) + 1;
          byScope[String(r.scope)] = (byScope[String(r.scope)] ?? 0) + 1;
        }
        return { documents: docs.length, chunks, bySource, byScope };
      });
    },

    getEmbeddingInfo() {
      return read('getEmbeddingInfo', async (t) => {
        // Asked before every store: answered from the last read while the meta table has not changed (its version
        // moves with every commit of any connection; checking it costs far less than a query).
        const version = await t.meta.version();
        if (embeddingInfoCache?.version === version) return embeddingInfoCache.info;
        const found = await rows(t.meta, sqlIn('key', [META_MODEL, META_DIMENSION]));
        const value = (key: string) => found.find((r) => r.key === key)?.value;
        const model = value(META_MODEL) === undefined ? null : String(value(META_MODEL));
        const dimension = Number(value(META_DIMENSION));
        const info =
          model === null || !Number.isFinite(dimension) || dimension <= 0
            ? null
            : ({ model, dimension } satisfies EmbeddingInfo);
        embeddingInfoCache = { version, info };
        return info;
      });
    },

    setEmbeddingInfo(info) {
      return write(
        'setEmbeddingInfo',
        async (t) => {
          await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
        },
        (t) => [t.upkeep.meta],
      );
    },

    optimize(opts = {}) {
      return write('optimize', (t) => optimizeTables(t.upkeep.chunks, plainTables(t), opts));
    },

    indexState() {
      return runner.readFresh('indexState', (t) => t.upkeep.chunks.indexState());
    },

    close() {
      return runner.close();
    },
  };
}
