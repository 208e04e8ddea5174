/**
 * The per-session structured ports on PostgreSQL: summaries, users, session state, phases and tool events. The statements
 * are the shared ones of @mem/core/adapter, but for two PostgreSQL forms: a summary save is one statement (no write lock
 * orders a read and a write under READ COMMITTED), and phase changes of one instance commit in call order.
 */
import type { PhaseStore, SessionStateStore, SqlRow, SummaryStore, ToolEventStore, UserStore } from '@mem/core/adapter';
import {
  SQL_RECORDS,
  selectList,
  sqlConflicts,
  sqlGet,
  sqlPhaseStore,
  sqlSessionStateStore,
  sqlSummaryStore,
  sqlToolEventStore,
  sqlUserStore,
} from '@mem/core/adapter';
import { compositeKey, KeyedQueue, type PortRuntime } from '../runtime.js';
import { postgresDeleteSessions, postgresDialect, postgresRunner } from '../sql-layer.js';

export function summaryStore(rt: PortRuntime): SummaryStore {
  const d = postgresDialect(rt);
  const r = postgresRunner(rt);
  const record = SQL_RECORDS.summary;
  const t = d.table('summaries');
  const cols = selectList(d, record.fields);
  const insert = `(space, session_id, summary, messages_covered, version, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 1, $5::text::timestamptz, $5::text::timestamptz)`;
  // Each form is one statement: the version check and the write cannot be split by another writer.
  const any = `INSERT INTO ${t} AS sm ${insert}
    ON CONFLICT (space, session_id) DO UPDATE SET summary = excluded.summary,
      messages_covered = excluded.messages_covered, version = sm.version + 1, updated_at = excluded.updated_at
    RETURNING ${cols}`;
  const fresh = `INSERT INTO ${t} ${insert} ON CONFLICT (space, session_id) DO NOTHING RETURNING ${cols}`;
  const update = `UPDATE ${t} SET summary = $3, messages_covered = $4, version = version + 1, updated_at = $5::text::timestamptz
    WHERE space = $1 AND session_id = $2 AND version = $6 RETURNING ${cols}`;
  const version = `SELECT version FROM ${t} WHERE space = $1 AND session_id = $2`;
  return {
    ...sqlSummaryStore(d, r, postgresDeleteSessions(rt)),
    save(space, w, expectedVersion) {
      return r.run('saving a summary', function* () {
        const params = [space, w.sessionId, w.summary, w.messagesCovered, w.at];
        const row =
          expectedVersion === undefined
            ? yield* sqlGet<SqlRow>(any, params)
            : expectedVersion === 0
              ? yield* sqlGet<SqlRow>(fresh, params)
              : yield* sqlGet<SqlRow>(update, [...params, expectedVersion]);
        if (row !== undefined) return record.from(row);
        const stored = Number((yield* sqlGet<{ version: number }>(version, [space, w.sessionId]))?.version ?? 0);
        throw sqlConflicts.summaryChanged(d, w.sessionId, stored, expectedVersion);
      });
    },
  };
}

export const userStore = (rt: PortRuntime): UserStore => sqlUserStore(postgresDialect(rt), postgresRunner(rt));

export const sessionStateStore = (rt: PortRuntime): SessionStateStore =>
  sqlSessionStateStore(postgresDialect(rt), postgresRunner(rt), postgresDeleteSessions(rt));

export function phaseStore(rt: PortRuntime): PhaseStore {
  const phases = sqlPhaseStore(postgresDialect(rt), postgresRunner(rt), postgresDeleteSessions(rt));
  // Changes of one session from this instance commit in call order (the current phase is the last inserted).
  const sets = new KeyedQueue();
  return {
    ...phases,
    set: (space, change) => sets.run(compositeKey(space, change.sessionId), () => phases.set(space, change)),
  };
}

export const toolEventStore = (rt: PortRuntime): ToolEventStore =>
  sqlToolEventStore(postgresDialect(rt), postgresRunner(rt), postgresDeleteSessions(rt));
