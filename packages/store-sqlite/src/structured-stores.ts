/**
 * The small structured ports of docs/structured.md on SQLite: messages, facts, goals, summaries, users, session state, phases
 * and tool events. Every statement is filtered by space. The rules (fact priority and merge) are the functions of
 * @mem/core; this file only stores and retrieves.
 */
import {
  type Fact,
  type FactSource,
  type Goal,
  type GoalStatus,
  type JsonObject,
  type JsonValue,
  MemError,
  type MessageRole,
  type PhaseChange,
  type SessionState,
  type SessionSummary,
  type StoredMessage,
  type ToolCall,
  type ToolEvent,
  type ToolEventFilter,
  type UserRecord,
} from '@mem/core';
import {
  canonicalJson,
  type FactStore,
  factPriority,
  type GoalStore,
  type MessageStore,
  mergeFacts,
  type PhaseStore,
  type SessionStateStore,
  type StructuredStores,
  type SummaryStore,
  type ToolEventStore,
  type UserStore,
} from '@mem/core/adapter';
import { createEpisodeStore, createProcedureStore } from './candidate-stores.js';
import {
  acquireConnection,
  duplicateId,
  isUniqueViolation,
  type SqliteHandle,
  type SqliteLease,
  type SqliteOpenOptions,
  sqlLimit,
} from './connection.js';
import { ADAPTER } from './database.js';
import { STRUCTURED_SCHEMA_VERSION } from './migrations.js';

const parse = <T extends JsonValue>(text: string): T => JSON.parse(text) as T;

/**
 * `DELETE` of every row of a space whose session id starts with a prefix. The prefix is compared with `substr`, not
 * `LIKE`: `%`, `_` and `\` stay literal and the comparison is case-sensitive (SQLite's `LIKE` is not). A NULL
 * session id never matches.
 */
function deleteSessionsSql(table: string): string {
  return `DELETE FROM ${table} WHERE space = ? AND substr(session_id, 1, length(?)) = ?`;
}

// ---------- messages ----------

interface MessageRow {
  id: string;
  session_id: string;
  role: string;
  content: string;
  tool_calls: string;
  name: string | null;
  metadata: string;
  created_at: string;
}

const MESSAGE_COLUMNS = 'id, session_id, role, content, tool_calls, name, metadata, created_at';

function toMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    role: row.role as MessageRole,
    content: row.content,
    toolCalls: parse(row.tool_calls) as unknown as ToolCall[],
    name: row.name,
    metadata: parse<JsonObject>(row.metadata),
    createdAt: row.created_at,
  };
}

function messageStore(c: SqliteLease): MessageStore {
  return {
    name: ADAPTER,
    save(space, m) {
      return c.run(
        'saving a message',
        () => {
          c.stmt(
            `INSERT INTO messages (space, id, session_id, role, content, tool_calls, name, metadata, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            space,
            m.id,
            m.sessionId,
            m.role,
            m.content,
            JSON.stringify(m.toolCalls),
            m.name,
            JSON.stringify(m.metadata),
            m.createdAt,
          );
        },
        (error) => (isUniqueViolation(error) ? duplicateId('message', m.id, error) : null),
      );
    },
    recent(space, sessionId, limit) {
      return c.run('reading messages', () => {
        const n = sqlLimit(limit);
        if (n === null) return [];
        const rows = c
          .stmt(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE space = ? AND session_id = ? ORDER BY rid DESC LIMIT ?`)
          .all(space, sessionId, n) as MessageRow[];
        return rows.reverse().map(toMessage);
      });
    },
    count(space, sessionId) {
      return c.run('counting messages', () => {
        const row = c
          .stmt('SELECT count(*) AS n FROM messages WHERE space = ? AND session_id = ?')
          .get(space, sessionId);
        return (row as { n: number }).n;
      });
    },
    deleteBefore(space, sessionId, keepLast) {
      return c.run('deleting messages', () => {
        const keep = Math.max(0, Math.floor(keepLast));
        if (!(keep > 0)) {
          return c.stmt('DELETE FROM messages WHERE space = ? AND session_id = ?').run(space, sessionId).changes;
        }
        // One statement: everything older than the keep-th newest message goes.
        return c
          .stmt(
            `DELETE FROM messages WHERE space = ? AND session_id = ? AND rid < (
               SELECT rid FROM messages WHERE space = ? AND session_id = ? ORDER BY rid DESC LIMIT 1 OFFSET ?)`,
          )
          .run(space, sessionId, space, sessionId, keep - 1).changes;
      });
    },
  };
}

// ---------- facts ----------

interface FactRow {
  user_id: string;
  topic: string | null;
  key: string;
  value: string;
  source: string;
  created_at: string;
  updated_at: string;
}

const FACT_COLUMNS = 'user_id, topic, key, value, source, created_at, updated_at';

function toFact(row: FactRow): Fact {
  return {
    user: row.user_id,
    topic: row.topic,
    key: row.key,
    value: parse(row.value),
    source: row.source as FactSource,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function factStore(c: SqliteLease): FactStore {
  const FIND = `SELECT ${FACT_COLUMNS} FROM facts WHERE space = ? AND user_id = ? AND topic IS ? AND key = ?`;
  return {
    name: ADAPTER,
    upsert(space, w) {
      return c.write('writing a fact', () => {
        const existed = c.stmt(FIND).get(space, w.user, w.topic, w.key) !== undefined;
        // The priority rule lives in the statement: a lower-priority source leaves the row as it is.
        const written = c
          .stmt(
            `INSERT INTO facts (space, user_id, topic, key, value, source, priority, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (space, user_id, topic IS NULL, ifnull(topic, ''), key) DO UPDATE SET
               value = excluded.value, source = excluded.source, priority = excluded.priority,
               updated_at = excluded.updated_at
             WHERE excluded.priority >= facts.priority
             RETURNING ${FACT_COLUMNS}`,
          )
          .get(space, w.user, w.topic, w.key, canonicalJson(w.value), w.source, factPriority(w.source), w.at, w.at) as
          | FactRow
          | undefined;
        if (written !== undefined) return { status: existed ? 'updated' : 'created', fact: toFact(written) } as const;
        const kept = c.stmt(FIND).get(space, w.user, w.topic, w.key) as FactRow;
        return { status: 'kept', fact: toFact(kept) } as const;
      });
    },
    get(space, user, topic) {
      return c.run('reading facts', () => {
        const rows = c
          .stmt(`SELECT ${FACT_COLUMNS} FROM facts WHERE space = ? AND user_id = ? AND (topic IS NULL OR topic = ?)`)
          .all(space, user, topic ?? null) as FactRow[];
        return mergeFacts(rows.map(toFact), topic);
      });
    },
    find(space, user, key, topic) {
      return c.run('reading a fact', () => {
        const row = c.stmt(FIND).get(space, user, topic, key) as FactRow | undefined;
        return row === undefined ? null : toFact(row);
      });
    },
    delete(space, user, key, topic) {
      return c.run(
        'deleting a fact',
        () =>
          c
            .stmt('DELETE FROM facts WHERE space = ? AND user_id = ? AND topic IS ? AND key = ?')
            .run(space, user, topic, key).changes > 0,
      );
    },
    deleteUser(space, user) {
      return c.run(
        'deleting facts',
        () => c.stmt('DELETE FROM facts WHERE space = ? AND user_id = ?').run(space, user).changes,
      );
    },
  };
}

// ---------- goals ----------

interface GoalRow {
  id: string;
  user_id: string;
  topic: string | null;
  goal: string;
  status: string;
  metadata: string;
  created_at: string;
  updated_at: string;
}

const GOAL_COLUMNS = 'id, user_id, topic, goal, status, metadata, created_at, updated_at';

function toGoal(row: GoalRow): Goal {
  return {
    id: row.id,
    user: row.user_id,
    topic: row.topic,
    goal: row.goal,
    status: row.status as GoalStatus,
    metadata: parse<JsonObject>(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function goalStore(c: SqliteLease): GoalStore {
  const ACTIVE = `SELECT ${GOAL_COLUMNS} FROM goals
    WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'`;
  return {
    name: ADAPTER,
    setActive(space, g) {
      return c.write(
        'setting the active goal',
        () => {
          if (c.stmt('SELECT 1 FROM goals WHERE space = ? AND id = ?').get(space, g.id) !== undefined)
            throw duplicateId('goal', g.id, undefined);
          const replaced = c
            .stmt(
              `UPDATE goals SET status = 'replaced', updated_at = ?
               WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'
               RETURNING ${GOAL_COLUMNS}`,
            )
            .get(g.at, space, g.user, g.topic) as GoalRow | undefined;
          const inserted = c
            .stmt(
              `INSERT INTO goals (space, id, user_id, topic, goal, status, metadata, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?) RETURNING ${GOAL_COLUMNS}`,
            )
            .get(space, g.id, g.user, g.topic, g.goal, JSON.stringify(g.metadata), g.at, g.at) as GoalRow;
          return { goal: toGoal(inserted), replaced: replaced === undefined ? null : toGoal(replaced) };
        },
        (error) => (isUniqueViolation(error, 'goals.id') ? duplicateId('goal', g.id, error) : null),
      );
    },
    getActive(space, user, topic) {
      return c.run('reading the active goal', () => {
        const row = c.stmt(ACTIVE).get(space, user, topic) as GoalRow | undefined;
        return row === undefined ? null : toGoal(row);
      });
    },
    finish(space, user, topic, status, at) {
      return c.run('finishing a goal', () => {
        const row = c
          .stmt(
            `UPDATE goals SET status = ?, updated_at = ?
             WHERE space = ? AND user_id = ? AND topic IS ? AND status = 'active'
             RETURNING ${GOAL_COLUMNS}`,
          )
          .get(status, at, space, user, topic) as GoalRow | undefined;
        return row === undefined ? null : toGoal(row);
      });
    },
    list(space, user, options = {}) {
      return c.run('listing goals', () => {
        const n = sqlLimit(options.limit);
        if (n === null) return [];
        const order = 'ORDER BY created_at DESC, rid DESC LIMIT ?';
        const rows =
          options.topic === undefined
            ? c.stmt(`SELECT ${GOAL_COLUMNS} FROM goals WHERE space = ? AND user_id = ? ${order}`).all(space, user, n)
            : c
                .stmt(`SELECT ${GOAL_COLUMNS} FROM goals WHERE space = ? AND user_id = ? AND topic IS ? ${order}`)
                .all(space, user, options.topic, n);
        return (rows as GoalRow[]).map(toGoal);
      });
    },
    deleteUser(space, user) {
      return c.run(
        'deleting goals',
        () => c.stmt('DELETE FROM goals WHERE space = ? AND user_id = ?').run(space, user).changes,
      );
    },
  };
}

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

function summaryStore(c: SqliteLease): SummaryStore {
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

function userStore(c: SqliteLease): UserStore {
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

function sessionStateStore(c: SqliteLease): SessionStateStore {
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

function phaseStore(c: SqliteLease): PhaseStore {
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

function toolEventStore(c: SqliteLease): ToolEventStore {
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

// ---------- the bundle ----------

/** Every structured port on one SQLite connection, plus the connection's handle (`db`, `migrate`, `close`). */
export interface SqliteStructuredStores extends StructuredStores, SqliteHandle {}

/**
 * Every structured port of docs/structured.md on one SQLite file: `{ path }` opens a connection (closed by `close()`),
 * `{ db }` shares an open one, e.g. the knowledge store's (`{ db: knowledge.db }`; never closed here).
 * Pending migrations run on open unless `autoMigrate` is false. The ports are unguarded, like every adapter: the
 * stack wraps them with `guardStructuredStores`.
 */
export function createSqliteStructuredStores(options: SqliteOpenOptions): SqliteStructuredStores {
  const c = acquireConnection(options, STRUCTURED_SCHEMA_VERSION);
  return {
    ...c.handle(),
    messages: messageStore(c),
    facts: factStore(c),
    goals: goalStore(c),
    summaries: summaryStore(c),
    users: userStore(c),
    sessionState: sessionStateStore(c),
    phases: phaseStore(c),
    toolEvents: toolEventStore(c),
    episodes: createEpisodeStore(c),
    procedures: createProcedureStore(c),
  };
}
