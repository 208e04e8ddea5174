/** The per-session structured ports on PostgreSQL: summaries, users, session state, phases and tool events. */
import {
  type JsonObject,
  type JsonValue,
  MemError,
  type PhaseChange,
  type SessionSummary,
  type ToolEvent,
  type ToolEventFilter,
  type UserRecord,
} from '@mem/core';
import type { PhaseStore, SessionStateStore, SummaryStore, ToolEventStore, UserStore } from '@mem/core/adapter';
import { ADAPTER, exec, Params } from '../connection.js';
import { iso } from '../queries.js';
import { compositeKey, duplicateId, isUniqueViolation, KeyedQueue, type PortRuntime, rowLimit } from '../runtime.js';

import { deleteSessionRows, parse } from './shared.js';

// ---------- summaries ----------

interface SummaryRow {
  sessionid: string;
  summary: string;
  messagescovered: number;
  version: number;
  createdat: string;
  updatedat: string;
}

const SUMMARY_COLS = `session_id AS sessionid, summary, messages_covered AS messagescovered, version,
  ${iso('created_at')} AS createdat, ${iso('updated_at')} AS updatedat`;

const toSummary = (row: SummaryRow): SessionSummary => ({
  sessionId: row.sessionid,
  summary: row.summary,
  messagesCovered: Number(row.messagescovered),
  version: Number(row.version),
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

export function summaryStore(rt: PortRuntime): SummaryStore {
  const { sql, s } = rt;
  return {
    name: ADAPTER,
    save(space, w, expectedVersion) {
      return rt.run('saving a summary', async () => {
        const params = [space, w.sessionId, w.summary, w.messagesCovered, w.at];
        // Each form is one statement: the version check and the write cannot be split by another writer.
        const rows =
          expectedVersion === undefined
            ? await exec<SummaryRow[]>(
                sql,
                `INSERT INTO ${s}.summaries AS sm (space, session_id, summary, messages_covered, version, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, 1, $5::text::timestamptz, $5::text::timestamptz)
                 ON CONFLICT (space, session_id) DO UPDATE SET summary = excluded.summary,
                   messages_covered = excluded.messages_covered, version = sm.version + 1, updated_at = excluded.updated_at
                 RETURNING ${SUMMARY_COLS}`,
                params,
              )
            : expectedVersion === 0
              ? await exec<SummaryRow[]>(
                  sql,
                  `INSERT INTO ${s}.summaries (space, session_id, summary, messages_covered, version, created_at, updated_at)
                   VALUES ($1, $2, $3, $4, 1, $5::text::timestamptz, $5::text::timestamptz)
                   ON CONFLICT (space, session_id) DO NOTHING
                   RETURNING ${SUMMARY_COLS}`,
                  params,
                )
              : await exec<SummaryRow[]>(
                  sql,
                  `UPDATE ${s}.summaries SET summary = $3, messages_covered = $4, version = version + 1,
                     updated_at = $5::text::timestamptz
                   WHERE space = $1 AND session_id = $2 AND version = $6
                   RETURNING ${SUMMARY_COLS}`,
                  [...params, expectedVersion],
                );
        const [row] = rows;
        if (row !== undefined) return toSummary(row);
        const [current] = await exec<{ version: number }[]>(
          sql,
          `SELECT version FROM ${s}.summaries WHERE space = $1 AND session_id = $2`,
          [space, w.sessionId],
        );
        const stored = Number(current?.version ?? 0);
        throw new MemError(
          'CONFLICT',
          `${ADAPTER}: the summary of session "${w.sessionId}" changed meanwhile (version ${stored}, expected ${expectedVersion}). Read it again and retry.`,
          { retryable: true, details: { sessionId: w.sessionId, storedVersion: stored, expectedVersion } },
        );
      });
    },
    get(space, sessionId) {
      return rt.run('reading a summary', async () => {
        const [row] = await exec<SummaryRow[]>(
          sql,
          `SELECT ${SUMMARY_COLS} FROM ${s}.summaries WHERE space = $1 AND session_id = $2`,
          [space, sessionId],
        );
        return row === undefined ? null : toSummary(row);
      });
    },
    delete(space, sessionId) {
      return rt.run('deleting a summary', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.summaries WHERE space = $1 AND session_id = $2 RETURNING 1 AS one`,
          [space, sessionId],
        );
        return rows.length > 0;
      });
    },
    deleteSessions(space, prefix) {
      return rt.run('deleting summaries', () => deleteSessionRows(rt, 'summaries', space, prefix));
    },
  };
}

// ---------- users ----------

interface UserRow {
  id: string;
  externalid: string;
  createdat: string;
}

const USER_COLS = `id, external_id AS externalid, ${iso('created_at')} AS createdat`;
const toUser = (row: UserRow): UserRecord => ({ id: row.id, externalId: row.externalid, createdAt: row.createdat });

export function userStore(rt: PortRuntime): UserStore {
  const { sql, s } = rt;
  const byExternal = async (space: string, externalId: string) => {
    const [row] = await exec<UserRow[]>(
      sql,
      `SELECT ${USER_COLS} FROM ${s}.users WHERE space = $1 AND external_id = $2`,
      [space, externalId],
    );
    return row === undefined ? null : toUser(row);
  };
  return {
    name: ADAPTER,
    ensure(space, externalId, candidate) {
      return rt.run('ensuring a user', async () => {
        let inserted: UserRow | undefined;
        try {
          // Only a taken external id is ignored (a concurrent insert of it waits, then does nothing);
          // a taken internal id still fails (users_id → CONFLICT).
          [inserted] = await exec<UserRow[]>(
            sql,
            `INSERT INTO ${s}.users (space, external_id, id, created_at) VALUES ($1, $2, $3, $4::text::timestamptz)
             ON CONFLICT (space, external_id) DO NOTHING RETURNING ${USER_COLS}`,
            [space, externalId, candidate.id, candidate.at],
          );
        } catch (error) {
          if (isUniqueViolation(error, 'users_id')) {
            throw new MemError(
              'CONFLICT',
              `${ADAPTER}: user id "${candidate.id}" already belongs to another external id in this space. Use a new id.`,
              { cause: error, details: { id: candidate.id } },
            );
          }
          throw error;
        }
        if (inserted !== undefined) return { user: toUser(inserted), created: true };
        // A new statement, so a new snapshot: it sees the row that won.
        const user = await byExternal(space, externalId);
        if (user === null) {
          throw new MemError('CONFLICT', `${ADAPTER}: user "${externalId}" was deleted while being ensured; retry.`, {
            retryable: true,
          });
        }
        return { user, created: false };
      });
    },
    get(space, externalId) {
      return rt.run('reading a user', () => byExternal(space, externalId));
    },
    getById(space, id) {
      return rt.run('reading a user', async () => {
        const [row] = await exec<UserRow[]>(sql, `SELECT ${USER_COLS} FROM ${s}.users WHERE space = $1 AND id = $2`, [
          space,
          id,
        ]);
        return row === undefined ? null : toUser(row);
      });
    },
    delete(space, externalId) {
      return rt.run('deleting a user', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.users WHERE space = $1 AND external_id = $2 RETURNING 1 AS one`,
          [space, externalId],
        );
        return rows.length > 0;
      });
    },
  };
}

// ---------- session state ----------

export function sessionStateStore(rt: PortRuntime): SessionStateStore {
  const { sql, s } = rt;
  return {
    name: ADAPTER,
    get(space, sessionId) {
      return rt.run('reading session state', async () => {
        const [row] = await exec<{ sessionid: string; state: string; updatedat: string }[]>(
          sql,
          `SELECT session_id AS sessionid, state::text AS state, ${iso('updated_at')} AS updatedat
           FROM ${s}.session_state WHERE space = $1 AND session_id = $2`,
          [space, sessionId],
        );
        return row === undefined
          ? null
          : { sessionId: row.sessionid, state: parse<JsonValue>(row.state), updatedAt: row.updatedat };
      });
    },
    set(space, sessionId, state, at) {
      return rt.run('writing session state', async () => {
        await exec(
          sql,
          `INSERT INTO ${s}.session_state (space, session_id, state, updated_at)
           VALUES ($1, $2, $3::text::jsonb, $4::text::timestamptz)
           ON CONFLICT (space, session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
          [space, sessionId, JSON.stringify(state), at],
        );
      });
    },
    delete(space, sessionId) {
      return rt.run('deleting session state', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.session_state WHERE space = $1 AND session_id = $2 RETURNING 1 AS one`,
          [space, sessionId],
        );
        return rows.length > 0;
      });
    },
    deleteSessions(space, prefix) {
      return rt.run('deleting session state', () => deleteSessionRows(rt, 'session_state', space, prefix));
    },
  };
}

// ---------- phases ----------

interface PhaseRow {
  sessionid: string;
  phase: string;
  metadata: string;
  at: string;
}

const toPhase = (row: PhaseRow): PhaseChange => ({
  sessionId: row.sessionid,
  phase: row.phase,
  metadata: parse<JsonObject>(row.metadata),
  at: row.at,
});

export function phaseStore(rt: PortRuntime): PhaseStore {
  const { sql, s } = rt;
  const NEWEST = `SELECT session_id AS sessionid, phase, metadata::text AS metadata, ${iso('at')} AS at
    FROM ${s}.phases WHERE space = $1 AND session_id = $2 ORDER BY rid DESC LIMIT $3`;
  // Changes of one session from this instance commit in call order (the current phase is the last inserted).
  const sets = new KeyedQueue();
  return {
    name: ADAPTER,
    set(space, change) {
      return sets.run(compositeKey(space, change.sessionId), () =>
        rt.run('recording a phase', async () => {
          await exec(
            sql,
            `INSERT INTO ${s}.phases (space, session_id, phase, metadata, at)
             VALUES ($1, $2, $3, $4::text::jsonb, $5::text::timestamptz)`,
            [space, change.sessionId, change.phase, JSON.stringify(change.metadata), change.at],
          );
        }),
      );
    },
    current(space, sessionId) {
      return rt.run('reading the phase', async () => {
        const [row] = await exec<PhaseRow[]>(sql, NEWEST, [space, sessionId, 1]);
        return row === undefined ? null : toPhase(row);
      });
    },
    history(space, sessionId, limit) {
      return rt.run('reading phase history', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const rows = await exec<PhaseRow[]>(sql, NEWEST, [space, sessionId, n]);
        return rows.reverse().map(toPhase);
      });
    },
    deleteSessions(space, prefix) {
      return rt.run('deleting phases', () => deleteSessionRows(rt, 'phases', space, prefix));
    },
  };
}

// ---------- tool events ----------

interface ToolEventRow {
  id: string;
  sessionid: string | null;
  tool: string;
  input: string;
  output: string;
  latencyms: number;
  error: string | null;
  at: string;
}

const TOOL_EVENT_COLS = `id, session_id AS sessionid, tool, input::text AS input, output::text AS output,
  latency_ms AS latencyms, error, ${iso('at')} AS at`;

const toToolEvent = (row: ToolEventRow): ToolEvent => ({
  id: row.id,
  sessionId: row.sessionid,
  tool: row.tool,
  input: parse<JsonValue>(row.input),
  output: parse<JsonValue>(row.output),
  latencyMs: Number(row.latencyms),
  error: row.error,
  at: row.at,
});

/** The SQL form of `matchesToolEventFilter` (@mem/core); parameters appended to `p`. */
function toolEventWhere(space: string, f: ToolEventFilter, p: Params): string {
  const parts = [`space = ${p.add(space)}`];
  if (f.sessionId !== undefined) parts.push(`session_id = ${p.add(f.sessionId)}`);
  if (f.tool !== undefined) parts.push(`tool = ${p.add(f.tool)}`);
  if (f.since !== undefined) parts.push(`at >= ${p.add(f.since)}::text::timestamptz`);
  if (f.until !== undefined) parts.push(`at < ${p.add(f.until)}::text::timestamptz`);
  if (f.failed !== undefined) parts.push(f.failed ? 'error IS NOT NULL' : 'error IS NULL');
  return parts.join(' AND ');
}

export function toolEventStore(rt: PortRuntime): ToolEventStore {
  const { sql, s } = rt;
  return {
    name: ADAPTER,
    record(space, e) {
      return rt.run('recording a tool event', async () => {
        try {
          await exec(
            sql,
            `INSERT INTO ${s}.tool_events (space, id, session_id, tool, input, output, latency_ms, error, at)
             VALUES ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7, $8, $9::text::timestamptz)`,
            [
              space,
              e.id,
              e.sessionId,
              e.tool,
              JSON.stringify(e.input),
              JSON.stringify(e.output),
              e.latencyMs,
              e.error,
              e.at,
            ],
          );
        } catch (error) {
          if (isUniqueViolation(error, 'tool_events_pkey')) throw duplicateId('tool event', e.id, error);
          throw error;
        }
      });
    },
    list(space, filter, limit) {
      return rt.run('listing tool events', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const p = new Params();
        const where = toolEventWhere(space, filter, p);
        const rows = await exec<ToolEventRow[]>(
          sql,
          `SELECT ${TOOL_EVENT_COLS} FROM ${s}.tool_events WHERE ${where} ORDER BY at DESC, rid DESC LIMIT ${p.add(n)}`,
          p.values,
        );
        return rows.reverse().map(toToolEvent);
      });
    },
    count(space, filter) {
      return rt.run('counting tool events', async () => {
        const p = new Params();
        const where = toolEventWhere(space, filter, p);
        const [row] = await exec<{ n: number }[]>(
          sql,
          `SELECT count(*)::int AS n FROM ${s}.tool_events WHERE ${where}`,
          p.values,
        );
        return Number(row?.n ?? 0);
      });
    },
    deleteSessions(space, prefix) {
      return rt.run('deleting tool events', () => deleteSessionRows(rt, 'tool_events', space, prefix));
    },
  };
}
