/** The per-session structured ports on SQLite: summaries, users, session state, phases and tool events. */
import {
  type JsonObject,
  MemError,
  type PhaseChange,
  type SessionState,
  type SessionSummary,
  type ToolEvent,
  type ToolEventFilter,
  type UserRecord,
} from '@mem/core';
import type { PhaseStore, SessionStateStore, SummaryStore, ToolEventStore, UserStore } from '@mem/core/adapter';
import { duplicateId, isUniqueViolation, type SqliteLease, sqlLimit } from '../connection.js';
import { ADAPTER } from '../database.js';

import { deleteSessionsSql, parse } from './shared.js';

// ---------- summaries ----------

interface SummaryRow {
  session_id: string;
  summary: string;
  messages_covered: number;
  version: number;
  created_at: string;
  updated_at: string;
}

const SUMMARY_COLUMNS = 'session_id, summary, messages_covered, version, created_at, updated_at';

function toSummary(row: SummaryRow): SessionSummary {
  return {
    sessionId: row.session_id,
    summary: row.summary,
    messagesCovered: row.messages_covered,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function summaryStore(c: SqliteLease): SummaryStore {
  return {
    name: ADAPTER,
    save(space, w, expectedVersion) {
      return c.write('saving a summary', () => {
        const row = c
          .stmt('SELECT version FROM summaries WHERE space = ? AND session_id = ?')
          .get(space, w.sessionId) as { version: number } | undefined;
        const current = row?.version ?? 0;
        if (expectedVersion !== undefined && expectedVersion !== current) {
          throw new MemError(
            'CONFLICT',
            `${ADAPTER}: the summary of session "${w.sessionId}" changed meanwhile (version ${current}, expected ${expectedVersion}). Read it again and retry.`,
            { retryable: true, details: { sessionId: w.sessionId, storedVersion: current, expectedVersion } },
          );
        }
        const saved = c
          .stmt(
            `INSERT INTO summaries (space, session_id, summary, messages_covered, version, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (space, session_id) DO UPDATE SET summary = excluded.summary,
               messages_covered = excluded.messages_covered, version = excluded.version, updated_at = excluded.updated_at
             RETURNING ${SUMMARY_COLUMNS}`,
          )
          .get(space, w.sessionId, w.summary, w.messagesCovered, current + 1, w.at, w.at) as SummaryRow;
        return toSummary(saved);
      });
    },
    get(space, sessionId) {
      return c.run('reading a summary', () => {
        const row = c
          .stmt(`SELECT ${SUMMARY_COLUMNS} FROM summaries WHERE space = ? AND session_id = ?`)
          .get(space, sessionId) as SummaryRow | undefined;
        return row === undefined ? null : toSummary(row);
      });
    },
    delete(space, sessionId) {
      return c.run(
        'deleting a summary',
        () => c.stmt('DELETE FROM summaries WHERE space = ? AND session_id = ?').run(space, sessionId).changes > 0,
      );
    },
    deleteSessions(space, prefix) {
      return c.run(
        'deleting summaries',
        () => c.stmt(deleteSessionsSql('summaries')).run(space, prefix, prefix).changes,
      );
    },
  };
}

// ---------- users ----------

interface UserRow {
  id: string;
  external_id: string;
  created_at: string;
}

const toUser = (row: UserRow): UserRecord => ({ id: row.id, externalId: row.external_id, createdAt: row.created_at });

export function userStore(c: SqliteLease): UserStore {
  const BY_EXTERNAL = 'SELECT id, external_id, created_at FROM users WHERE space = ? AND external_id = ?';
  return {
    name: ADAPTER,
    ensure(space, externalId, candidate) {
      return c.write(
        'ensuring a user',
        () => {
          // Only a taken external id is ignored; a taken internal id still fails (→ CONFLICT).
          const created =
            c
              .stmt(
                `INSERT INTO users (space, external_id, id, created_at) VALUES (?, ?, ?, ?)
                 ON CONFLICT (space, external_id) DO NOTHING`,
              )
              .run(space, externalId, candidate.id, candidate.at).changes > 0;
          const row = c.stmt(BY_EXTERNAL).get(space, externalId) as UserRow;
          return { user: toUser(row), created };
        },
        (error) =>
          isUniqueViolation(error)
            ? new MemError(
                'CONFLICT',
                `${ADAPTER}: user id "${candidate.id}" already belongs to another external id in this space. Use a new id.`,
                { cause: error, details: { id: candidate.id } },
              )
            : null,
      );
    },
    get(space, externalId) {
      return c.run('reading a user', () => {
        const row = c.stmt(BY_EXTERNAL).get(space, externalId) as UserRow | undefined;
        return row === undefined ? null : toUser(row);
      });
    },
    getById(space, id) {
      return c.run('reading a user', () => {
        const row = c.stmt('SELECT id, external_id, created_at FROM users WHERE space = ? AND id = ?').get(space, id) as
          | UserRow
          | undefined;
        return row === undefined ? null : toUser(row);
      });
    },
    delete(space, externalId) {
      return c.run(
        'deleting a user',
        () => c.stmt('DELETE FROM users WHERE space = ? AND external_id = ?').run(space, externalId).changes > 0,
      );
    },
  };
}

// ---------- session state ----------

export function sessionStateStore(c: SqliteLease): SessionStateStore {
  return {
    name: ADAPTER,
    get(space, sessionId) {
      return c.run('reading session state', () => {
        const row = c
          .stmt('SELECT session_id, state, updated_at FROM session_state WHERE space = ? AND session_id = ?')
          .get(space, sessionId) as { session_id: string; state: string; updated_at: string } | undefined;
        if (row === undefined) return null;
        const state: SessionState = { sessionId: row.session_id, state: parse(row.state), updatedAt: row.updated_at };
        return state;
      });
    },
    set(space, sessionId, state, at) {
      return c.run('writing session state', () => {
        c.stmt(
          `INSERT INTO session_state (space, session_id, state, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (space, session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
        ).run(space, sessionId, JSON.stringify(state), at);
      });
    },
    delete(space, sessionId) {
      return c.run(
        'deleting session state',
        () => c.stmt('DELETE FROM session_state WHERE space = ? AND session_id = ?').run(space, sessionId).changes > 0,
      );
    },
    deleteSessions(space, prefix) {
      return c.run(
        'deleting session state',
        () => c.stmt(deleteSessionsSql('session_state')).run(space, prefix, prefix).changes,
      );
    },
  };
}

// ---------- phases ----------

interface PhaseRow {
  session_id: string;
  phase: string;
  metadata: string;
  at: string;
}

const toPhase = (row: PhaseRow): PhaseChange => ({
  sessionId: row.session_id,
  phase: row.phase,
  metadata: parse<JsonObject>(row.metadata),
  at: row.at,
});

export function phaseStore(c: SqliteLease): PhaseStore {
  const NEWEST =
    'SELECT session_id, phase, metadata, at FROM phases WHERE space = ? AND session_id = ? ORDER BY rid DESC LIMIT ?';
  return {
    name: ADAPTER,
    set(space, change) {
      return c.run('recording a phase', () => {
        c.stmt('INSERT INTO phases (space, session_id, phase, metadata, at) VALUES (?, ?, ?, ?, ?)').run(
          space,
          change.sessionId,
          change.phase,
          JSON.stringify(change.metadata),
          change.at,
        );
      });
    },
    current(space, sessionId) {
      return c.run('reading the phase', () => {
        const row = c.stmt(NEWEST).get(space, sessionId, 1) as PhaseRow | undefined;
        return row === undefined ? null : toPhase(row);
      });
    },
    history(space, sessionId, limit) {
      return c.run('reading phase history', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        return (c.stmt(NEWEST).all(space, sessionId, n) as PhaseRow[]).reverse().map(toPhase);
      });
    },
    deleteSessions(space, prefix) {
      return c.run('deleting phases', () => c.stmt(deleteSessionsSql('phases')).run(space, prefix, prefix).changes);
    },
  };
}

// ---------- tool events ----------

interface ToolEventRow {
  id: string;
  session_id: string | null;
  tool: string;
  input: string;
  output: string;
  latency_ms: number;
  error: string | null;
  at: string;
}

const TOOL_EVENT_COLUMNS = 'id, session_id, tool, input, output, latency_ms, error, at';

const toToolEvent = (row: ToolEventRow): ToolEvent => ({
  id: row.id,
  sessionId: row.session_id,
  tool: row.tool,
  input: parse(row.input),
  output: parse(row.output),
  latencyMs: row.latency_ms,
  error: row.error,
  at: row.at,
});

/** The SQL form of `matchesToolEventFilter` (@mem/core); parameters appended to `params`. */
function toolEventWhere(space: string, f: ToolEventFilter, params: unknown[]): string {
  const parts = ['space = ?'];
  params.push(space);
  if (f.sessionId !== undefined) {
    parts.push('session_id = ?');
    params.push(f.sessionId);
  }
  if (f.tool !== undefined) {
    parts.push('tool = ?');
    params.push(f.tool);
  }
  if (f.since !== undefined) {
    parts.push('at >= ?');
    params.push(f.since);
  }
  if (f.until !== undefined) {
    parts.push('at < ?');
    params.push(f.until);
  }
  if (f.failed !== undefined) parts.push(f.failed ? 'error IS NOT NULL' : 'error IS NULL');
  return parts.join(' AND ');
}

export function toolEventStore(c: SqliteLease): ToolEventStore {
  return {
    name: ADAPTER,
    record(space, e) {
      return c.run(
        'recording a tool event',
        () => {
          c.stmt(
            `INSERT INTO tool_events (space, id, session_id, tool, input, output, latency_ms, error, at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            space,
            e.id,
            e.sessionId,
            e.tool,
            JSON.stringify(e.input),
            JSON.stringify(e.output),
            e.latencyMs,
            e.error,
            e.at,
          );
        },
        (error) => (isUniqueViolation(error) ? duplicateId('tool event', e.id, error) : null),
      );
    },
    list(space, filter, limit) {
      return c.run('listing tool events', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        const params: unknown[] = [];
        const where = toolEventWhere(space, filter, params);
        params.push(n);
        const rows = c
          .stmt(`SELECT ${TOOL_EVENT_COLUMNS} FROM tool_events WHERE ${where} ORDER BY at DESC, rid DESC LIMIT ?`)
          .all(...params) as ToolEventRow[];
        return rows.reverse().map(toToolEvent);
      });
    },
    count(space, filter) {
      return c.run('counting tool events', () => {
        const params: unknown[] = [];
        const where = toolEventWhere(space, filter, params);
        return (c.stmt(`SELECT count(*) AS n FROM tool_events WHERE ${where}`).get(...params) as { n: number }).n;
      });
    },
    deleteSessions(space, prefix) {
      return c.run(
        'deleting tool events',
        () => c.stmt(deleteSessionsSql('tool_events')).run(space, prefix, prefix).changes,
      );
    },
  };
}
