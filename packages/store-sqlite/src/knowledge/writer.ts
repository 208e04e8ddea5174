import type { MemoryVersion, Scope } from '@mem/core';
import { MemError } from '@mem/core';
import { type KnowledgeWriter, keyTakenByStore, type MemoryRecord } from '@mem/core/adapter';
import { ADAPTER } from '../database.js';
import { constraintKind, type SqliteKnowledgeContext } from './context.js';
import { vectorToBlob } from './rows.js';

/** The write role: inserts, edits, moves and deletions, each one transaction. */
export function createWriter(ctx: SqliteKnowledgeContext): KnowledgeWriter {
  const { stmt, run, write } = ctx;

  // --- statements used on hot paths (prepared lazily once, then reused) ---

  const CHUNK_COLUMNS = `id, doc_id, space, scope, agent_id, key, name, content, body_start, chunk_index, chunk_count,
    source, tags, embedding, embedding_model, content_hash, created_at, updated_at, expires_at, access_count,
    last_accessed_at, alpha, beta, version, valid_from, valid_to, invalidated_at, supersedes, superseded_by, user_id,
    claim`;
  // Positional parameters (in CHUNK_COLUMNS order): binding an array is cheaper than looking up 31 named ones per row.
  const INSERT_CHUNK = `INSERT INTO chunks (${CHUNK_COLUMNS}) VALUES (${Array(31).fill('?').join(', ')})`;
  const INSERT_TAG = 'INSERT OR IGNORE INTO chunk_tags (chunk_rid, tag) VALUES (?, ?)';
  const INSERT_VERSION = `INSERT INTO versions (space, doc_id, version, old_content, old_key, intent, agent_id, at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
  const DOC_VERSION = 'SELECT count(*) AS n, max(version) AS v FROM chunks WHERE space = ? AND doc_id = ?';

  function insertChunk(chunk: MemoryRecord, version?: number): void {
    const result = stmt(INSERT_CHUNK).run(
      chunk.id,
      chunk.docId,
      chunk.space,
      chunk.scope,
      chunk.agentId,
      chunk.key,
      chunk.name,
      chunk.content,
      chunk.bodyStart,
      chunk.chunkIndex,
      chunk.chunkCount,
      chunk.source,
      JSON.stringify(chunk.tags),
      chunk.embedding === null ? null : vectorToBlob(chunk.embedding),
      chunk.embeddingModel,
      chunk.contentHash,
      chunk.createdAt,
      chunk.updatedAt,
      chunk.expiresAt,
      chunk.accessCount,
      chunk.lastAccessedAt,
      chunk.alpha,
      chunk.beta,
      version ?? chunk.version,
      chunk.validFrom,
      chunk.validTo,
      chunk.invalidatedAt,
      chunk.supersedes,
      chunk.supersededBy,
      chunk.userId,
      chunk.claim === null ? null : JSON.stringify(chunk.claim),
    );
    if (chunk.tags.length > 0) {
      const insertTag = stmt(INSERT_TAG);
      for (const tag of new Set(chunk.tags)) insertTag.run(result.lastInsertRowid, tag);
    }
    ctx.vectorIndex?.placeInserted(result.lastInsertRowid, chunk.embedding);
  }

  function insertVersion(v: MemoryVersion): void {
    stmt(INSERT_VERSION).run(v.space, v.docId, v.version, v.oldContent, v.oldKey, v.intent, v.agentId, v.at);
  }

  /** Inside a transaction: the document's stored version, after checking it exists and matches. */
  function checkVersion(space: string, docId: string, expectedVersion: number): number {
    const row = stmt(DOC_VERSION).get(space, docId) as { n: number; v: number | null };
    if (row.n === 0 || row.v === null) {
      throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${docId} in space ${space}.`, {
        details: { space, docId },
      });
    }
    if (row.v !== expectedVersion) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${row.v}, expected ${expectedVersion}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: row.v, expectedVersion } },
      );
    }
    return row.v;
  }

  function keyTaken(space: string, scope: Scope, agentId: string, key: string, cause: unknown): MemError {
    let holder: string | null = null;
    try {
      const row = stmt(
        'SELECT doc_id FROM chunks WHERE space = ? AND scope = ? AND agent_id = ? AND key = ? ORDER BY chunk_index LIMIT 1',
      ).get(space, scope, agentId, key) as { doc_id: string } | undefined;
      holder = row?.doc_id ?? null;
    } catch {
      holder = null;
    }
    return keyTakenByStore(key, scope, agentId, holder, cause);
  }

  function duplicateId(cause: unknown): MemError {
    return new MemError('CONFLICT', `${ADAPTER}: a memory chunk with the same id already exists in this space.`, {
      cause,
    });
  }

  function deleteDocRows(space: string, docId: string): number {
    stmt('DELETE FROM formation_log WHERE space = ? AND memory_id = ?').run(space, docId);
    stmt('DELETE FROM versions WHERE space = ? AND doc_id = ?').run(space, docId);
    stmt('DELETE FROM ratings WHERE space = ? AND doc_id = ?').run(space, docId);
    return stmt('DELETE FROM chunks WHERE space = ? AND doc_id = ?').run(space, docId).changes;
  }

  /**
   * One write transaction: insert the documents of `batch` (each all its chunks), then `then`. A constraint that fails
   * names the document being written (the transaction rolls back as a whole).
   */
  function insertThen<T>(what: string, batch: MemoryRecord[][], then: () => T): Promise<T> {
    let current: MemoryRecord | undefined;
    return write(
      what,
      () => {
        ctx.vectorIndex?.refresh();
        for (const chunks of batch) {
          current = chunks[0];
          for (const chunk of chunks) insertChunk(chunk);
        }
        current = undefined;
        const done = then();
        ctx.vectorIndex?.flush();
        ctx.vectorIndex?.maintain();
        return done;
      },
      (error) => {
        const kind = constraintKind(error);
        if (kind === 'key' && current) {
          return keyTaken(current.space, current.scope, current.agentId, current.key, error);
        }
        if (kind === 'id') return duplicateId(error);
        return null;
      },
    );
  }

  const writer: KnowledgeWriter = {
    insertDocument(chunks) {
      return writer.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      const batch = docs.filter((chunks) => chunks.length > 0);
      if (batch.length === 0) return run('insertDocuments', () => undefined);
      return insertThen('insertDocuments', batch, () => undefined);
    },

    form(space, { insert, close, log }) {
      return insertThen(
        'form',
        insert.filter((chunks) => chunks.length > 0),
        () => {
          const closeDoc = stmt(
            `UPDATE chunks SET valid_to = ?, invalidated_at = ?, superseded_by = ?
             WHERE space = ? AND doc_id = ? AND invalidated_at IS NULL`,
          );
          for (const c of close) {
            if (closeDoc.run(c.validTo, c.invalidatedAt, c.supersededBy, space, c.docId).changes === 0)
              throw new MemError(
                'CONFLICT',
                `${ADAPTER}: memory ${c.docId} is already closed or gone; distil again to decide against what is current now.`,
                { retryable: true, details: { docId: c.docId } },
              );
          }
          const insertLine = stmt(
            `INSERT INTO formation_log (space, id, memory_id, decision, previous_id, text, evidence, extractor, model,
               prompt_version, related, agent_id, user_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          );
          for (const e of log)
            insertLine.run(
              space,
              e.id,
              e.memoryId,
              e.decision,
              e.previousId,
              e.text,
              JSON.stringify(e.evidence),
              e.extractor,
              e.model,
              e.promptVersion,
              JSON.stringify(e.related),
              e.agentId,
              e.userId,
              e.at,
            );
        },
      );
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return write(
        'replaceDocument',
        () => {
          const stored = checkVersion(space, docId, expectedVersion);
          // Ratings and reads do not change the version: keep the counters as stored now, not as the editor read
          // them, or a rating given while the edit was under way would be lost.
          const counters = stmt(
            `SELECT access_count AS accessCount, last_accessed_at AS lastAccessedAt, alpha, beta FROM chunks
             WHERE space = ? AND doc_id = ? ORDER BY chunk_index LIMIT 1`,
          ).get(space, docId) as Pick<MemoryRecord, 'accessCount' | 'lastAccessedAt' | 'alpha' | 'beta'>;
          ctx.vectorIndex?.refresh();
          stmt('DELETE FROM chunks WHERE space = ? AND doc_id = ?').run(space, docId);
          for (const chunk of chunks) insertChunk({ ...chunk, ...counters }, stored + 1);
          ctx.vectorIndex?.flush();
          insertVersion(version);
        },
        (error) => {
          const kind = constraintKind(error);
          const first = chunks[0];
          if (kind === 'key' && first) return keyTaken(first.space, first.scope, first.agentId, first.key, error);
          if (kind === 'id') return duplicateId(error);
          return null;
        },
      );
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      let owner: { scope: Scope; agent_id: string } | undefined;
      return write(
        'moveDocument',
        () => {
          checkVersion(space, docId, expectedVersion);
          owner = stmt('SELECT scope, agent_id FROM chunks WHERE space = ? AND doc_id = ? LIMIT 1').get(space, docId) as
            | { scope: Scope; agent_id: string }
            | undefined;
          const setExpiry = change.expiresAt !== undefined;
          stmt(
            `UPDATE chunks SET key = ?, updated_at = ?, version = version + 1,
               expires_at = CASE WHEN ? THEN ? ELSE expires_at END
             WHERE space = ? AND doc_id = ?`,
          ).run(change.newKey, change.updatedAt, setExpiry ? 1 : 0, setExpiry ? change.expiresAt : null, space, docId);
          insertVersion(version);
        },
        (error) => {
          if (constraintKind(error) === 'key' && owner)
            return keyTaken(space, owner.scope, owner.agent_id, change.newKey, error);
          return null;
        },
      );
    },

    deleteDocument(space, docId) {
      return write('deleteDocument', () => deleteDocRows(space, docId));
    },

    deleteByAgent(space, agentId) {
      return write('deleteByAgent', () => {
        // Tags (ON DELETE CASCADE) and FTS rows (trigger) go with their chunks; embeddings live in the chunk row.
        const owned = 'SELECT doc_id FROM chunks WHERE space = ? AND agent_id = ?';
        const docs = stmt(`SELECT count(DISTINCT doc_id) AS n FROM chunks WHERE space = ? AND agent_id = ?`).get(
          space,
          agentId,
        ) as { n: number };
        stmt(`DELETE FROM formation_log WHERE space = ? AND memory_id IN (${owned})`).run(space, space, agentId);
        const versions = stmt(`DELETE FROM versions WHERE space = ? AND doc_id IN (${owned})`).run(
          space,
          space,
          agentId,
        ).changes;
        const ratings = stmt(`DELETE FROM ratings WHERE space = ? AND doc_id IN (${owned})`).run(
          space,
          space,
          agentId,
        ).changes;
        const chunks = stmt('DELETE FROM chunks WHERE space = ? AND agent_id = ?').run(space, agentId).changes;
        return { documents: Number(docs.n), chunks, versions, ratings };
      });
    },

    deleteExpired(now, space) {
      return write('deleteExpired', () => {
        const expired =
          space === undefined
            ? 'SELECT space, doc_id FROM chunks WHERE expires_at IS NOT NULL AND expires_at <= ?'
            : 'SELECT space, doc_id FROM chunks WHERE expires_at IS NOT NULL AND expires_at <= ? AND space = ?';
        const params = space === undefined ? [now] : [now, space];
        stmt(`DELETE FROM formation_log WHERE (space, memory_id) IN (${expired})`).run(...params);
        stmt(`DELETE FROM versions WHERE (space, doc_id) IN (${expired})`).run(...params);
        stmt(`DELETE FROM ratings WHERE (space, doc_id) IN (${expired})`).run(...params);
        return stmt(`DELETE FROM chunks WHERE (space, doc_id) IN (${expired})`).run(...params).changes;
      });
    },
  };
  return writer;
}
