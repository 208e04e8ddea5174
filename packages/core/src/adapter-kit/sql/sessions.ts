/**
 * The per-session structured ports over any SQL engine: summaries, users, session state, phases and tool events.
 * Each method's statements are written once; an engine replaces a method where its own form is better (e.g. a
 * single-statement save where the engine has no write lock).
 */
import type { PhaseStore } from '../../ports/phase-store.js';
import type { SessionStateStore } from '../../ports/session-state-store.js';
import type { SummaryStore } from '../../ports/summary-store.js';
import type { ToolEventStore } from '../../ports/tool-event-store.js';
import type { UserStore } from '../../ports/user-store.js';
import type { ToolEventFilter } from '../../types-structured.js';
import { sqlConflicts } from './conflicts.js';
import { type SqlDialect, type SqlRunner, selectList, sqlRowCount } from './dialect.js';
import { type SqlProgram, type SqlValue, sqlAll, sqlGet, sqlRun } from './program.js';
import { SQL_RECORDS, type SqlRecord, type SqlRow } from './records.js';

/** Deletes every row of `table` in `space` whose session id starts with `prefix` (literally); returns how many. */
export type SqlDeleteSessions = (table: string, space: string, prefix: string) => SqlProgram<number>;

const byKey = (d: SqlDialect, table: string, key: string) =>
  `DELETE FROM ${d.table(table)} WHERE space = ${d.param(1)} AND ${key} = ${d.param(2)}`;

function* deleted(sql: string, params: readonly SqlValue[]): SqlProgram<boolean> {
  return (yield* sqlRun(sql, params)) > 0;
}

/** The newest `limit` rows of a session's log, oldest first; `sql` takes the space, the session id and the limit. */
export function* sqlNewest<T>(
  d: SqlDialect,
  record: SqlRecord<T>,
  sql: string,
  space: string,
  sessionId: string,
  limit: number | undefined,
): SqlProgram<T[]> {
  const n = sqlRowCount(limit);
  if (n === 0) return [];
  return (yield* sqlAll<SqlRow>(sql, [space, sessionId, d.limit(n)])).reverse().map(record.from);
}

/** The summary port. `save` reads the version and upserts in one transaction. */
export function sqlSummaryStore(d: SqlDialect, r: SqlRunner, deleteSessions: SqlDeleteSessions): SummaryStore {
  const record = SQL_RECORDS.summary;
  const t = d.table('summaries');
  const cols = selectList(d, record.fields);
  const version = `SELECT version FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}`;
  const get = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}`;
  const upsert = `INSERT INTO ${t} (space, session_id, summary, messages_covered, version, created_at, updated_at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)}, ${d.param(4)}, ${d.param(5)}, ${d.param(6, 'time')}, ${d.param(7, 'time')})
    ON CONFLICT (space, session_id) DO UPDATE SET summary = excluded.summary,
      messages_covered = excluded.messages_covered, version = excluded.version, updated_at = excluded.updated_at
    RETURNING ${cols}`;
  const remove = byKey(d, 'summaries', 'session_id');
  return {
    name: d.adapter,
    save(space, w, expectedVersion) {
      return r.transaction('saving a summary', function* () {
        const current = Number((yield* sqlGet<{ version: number }>(version, [space, w.sessionId]))?.version ?? 0);
        if (expectedVersion !== undefined && expectedVersion !== current) {
          throw sqlConflicts.summaryChanged(d, w.sessionId, current, expectedVersion);
        }
        const params = [space, w.sessionId, w.summary, w.messagesCovered, current + 1, w.at, w.at];
        return record.from((yield* sqlGet<SqlRow>(upsert, params)) as SqlRow);
      });
    },
    get(space, sessionId) {
      return r.run('reading a summary', function* () {
        const row = yield* sqlGet<SqlRow>(get, [space, sessionId]);
        return row === undefined ? null : record.from(row);
      });
    },
    delete(space, sessionId) {
      return r.run('deleting a summary', () => deleted(remove, [space, sessionId]));
    },
    deleteSessions(space, prefix) {
      return r.run('deleting summaries', () => deleteSessions('summaries', space, prefix));
    },
  };
}

/** The user port. `ensure` inserts unless the external id is taken, then reads, in one transaction. */
export function sqlUserStore(d: SqlDialect, r: SqlRunner): UserStore {
  const record = SQL_RECORDS.user;
  const t = d.table('users');
  const cols = selectList(d, record.fields);
  const byExternal = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND external_id = ${d.param(2)}`;
  const byId = `SELECT ${cols} FROM ${t} WHERE space = ${d.param(1)} AND id = ${d.param(2)}`;
  const insert = `INSERT INTO ${t} (space, external_id, id, created_at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)}, ${d.param(4, 'time')}) ON CONFLICT (space, external_id) DO NOTHING`;
  const remove = byKey(d, 'users', 'external_id');
  const read = (sql: string) =>
    function* (space: string, key: string) {
      const row = yield* sqlGet<SqlRow>(sql, [space, key]);
      return row === undefined ? null : record.from(row);
    };
  const readExternal = read(byExternal);
  const readId = read(byId);
  return {
    name: d.adapter,
    ensure(space, externalId, candidate) {
      return r.transaction(
        'ensuring a user',
        function* () {
          // Only a taken external id is ignored; a taken internal id still fails (→ CONFLICT).
          const created = (yield* sqlRun(insert, [space, externalId, candidate.id, candidate.at])) > 0;
          // Where transactions read committed rows (PostgreSQL), another writer may delete the row in between.
          const user = yield* readExternal(space, externalId);
          if (user === null) throw sqlConflicts.userDeleted(d, externalId);
          return { user, created };
        },
        (error) => (d.isDuplicate(error, 'users') ? sqlConflicts.userTaken(d, candidate.id, error) : null),
      );
    },
    get(space, externalId) {
      return r.run('reading a user', () => readExternal(space, externalId));
    },
    getById(space, id) {
      return r.run('reading a user', () => readId(space, id));
    },
    delete(space, externalId) {
      return r.run('deleting a user', () => deleted(remove, [space, externalId]));
    },
  };
}

/** The session state port: one row per session, upserted. */
export function sqlSessionStateStore(
  d: SqlDialect,
  r: SqlRunner,
  deleteSessions: SqlDeleteSessions,
): SessionStateStore {
  const record = SQL_RECORDS.sessionState;
  const t = d.table('session_state');
  const get = `SELECT ${selectList(d, record.fields)} FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}`;
  const set = `INSERT INTO ${t} (space, session_id, state, updated_at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3, 'json')}, ${d.param(4, 'time')})
    ON CONFLICT (space, session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`;
  const remove = byKey(d, 'session_state', 'session_id');
  return {
    name: d.adapter,
    get(space, sessionId) {
      return r.run('reading session state', function* () {
        const row = yield* sqlGet<SqlRow>(get, [space, sessionId]);
        return row === undefined ? null : record.from(row);
      });
    },
    set(space, sessionId, state, at) {
      return r.run('writing session state', function* () {
        yield* sqlRun(set, [space, sessionId, JSON.stringify(state), at]);
      });
    },
    delete(space, sessionId) {
      return r.run('deleting session state', () => deleted(remove, [space, sessionId]));
    },
    deleteSessions(space, prefix) {
      return r.run('deleting session state', () => deleteSessions('session_state', space, prefix));
    },
  };
}

/** The phase port: an append-only log per session, the newest row (by `rid`) current. */
export function sqlPhaseStore(d: SqlDialect, r: SqlRunner, deleteSessions: SqlDeleteSessions): PhaseStore {
  const record = SQL_RECORDS.phase;
  const t = d.table('phases');
  const newest = `SELECT ${selectList(d, record.fields)} FROM ${t} WHERE space = ${d.param(1)} AND session_id = ${d.param(2)}
    ORDER BY rid DESC LIMIT ${d.param(3)}`;
  const insert = `INSERT INTO ${t} (space, session_id, phase, metadata, at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)}, ${d.param(4, 'json')}, ${d.param(5, 'time')})`;
  return {
    name: d.adapter,
    set(space, change) {
      return r.run('recording a phase', function* () {
        yield* sqlRun(insert, [space, change.sessionId, change.phase, JSON.stringify(change.metadata), change.at]);
      });
    },
    current(space, sessionId) {
      return r.run('reading the phase', function* () {
        const row = yield* sqlGet<SqlRow>(newest, [space, sessionId, 1]);
        return row === undefined ? null : record.from(row);
      });
    },
    history(space, sessionId, limit) {
      return r.run('reading phase history', () => sqlNewest(d, record, newest, space, sessionId, limit));
    },
    deleteSessions(space, prefix) {
      return r.run('deleting phases', () => deleteSessions('phases', space, prefix));
    },
  };
}

/** The SQL form of `matchesToolEventFilter` (@mem/core); its parameters appended to `params`. */
function toolEventWhere(d: SqlDialect, space: string, f: ToolEventFilter, params: SqlValue[]): string {
  const add = (value: SqlValue, type?: 'time') => {
    params.push(value);
    return d.param(params.length, type);
  };
  const parts = [`space = ${add(space)}`];
  if (f.sessionId !== undefined) parts.push(`session_id = ${add(f.sessionId)}`);
  if (f.tool !== undefined) parts.push(`tool = ${add(f.tool)}`);
  if (f.since !== undefined) parts.push(`at >= ${add(f.since, 'time')}`);
  if (f.until !== undefined) parts.push(`at < ${add(f.until, 'time')}`);
  if (f.failed !== undefined) parts.push(f.failed ? 'error IS NOT NULL' : 'error IS NULL');
  return parts.join(' AND ');
}

/** The tool event port: recorded once each, listed oldest first within the newest `limit`. */
export function sqlToolEventStore(d: SqlDialect, r: SqlRunner, deleteSessions: SqlDeleteSessions): ToolEventStore {
  const record = SQL_RECORDS.toolEvent;
  const t = d.table('tool_events');
  const cols = selectList(d, record.fields);
  const types = ['text', 'text', 'text', 'text', 'json', 'json', 'int', 'text', 'time'] as const;
  const insert = `INSERT INTO ${t} (space, id, session_id, tool, input, output, latency_ms, error, at)
    VALUES (${types.map((type, i) => d.param(i + 1, type)).join(', ')})`;
  return {
    name: d.adapter,
    record(space, e) {
      return r.run(
        'recording a tool event',
        function* () {
          const input = JSON.stringify(e.input);
          const output = JSON.stringify(e.output);
          yield* sqlRun(insert, [space, e.id, e.sessionId, e.tool, input, output, e.latencyMs, e.error, e.at]);
        },
        (error) =>
          d.isDuplicate(error, 'tool_events') ? sqlConflicts.duplicateId(d, 'tool event', e.id, error) : null,
      );
    },
    list(space, filter, limit) {
      return r.run('listing tool events', function* () {
        const n = sqlRowCount(limit);
        if (n === 0) return [];
        const params: SqlValue[] = [];
        const where = toolEventWhere(d, space, filter, params);
        params.push(d.limit(n));
        const sql = `SELECT ${cols} FROM ${t} WHERE ${where} ORDER BY at DESC, rid DESC LIMIT ${d.param(params.length)}`;
        return (yield* sqlAll<SqlRow>(sql, params)).reverse().map(record.from);
      });
    },
    count(space, filter) {
      return r.run('counting tool events', function* () {
        const params: SqlValue[] = [];
        const sql = `SELECT ${d.count} AS n FROM ${t} WHERE ${toolEventWhere(d, space, filter, params)}`;
        return Number((yield* sqlGet<{ n: number }>(sql, params))?.n ?? 0);
      });
    },
    deleteSessions(space, prefix) {
      return r.run('deleting tool events', () => deleteSessions('tool_events', space, prefix));
    },
  };
}
