/**
 * The small structured ports of docs/structured.md on PostgreSQL: messages, facts, goals, summaries, users, session state,
 * phases and tool events. Every statement is filtered by space. JSON values are jsonb (sent as text, read back as
 * text and parsed here, so a shared client's parsers and transforms change nothing); times are timestamptz read
 * back as ISO-8601 UTC with milliseconds. The rules (fact priority and merge) are the functions of @mem/core.
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
  type SessionSummary,
  type StoredMessage,
  type ToolCall,
  type ToolEvent,
  type ToolEventFilter,
  type UserRecord,
} from '@mem/core';
import {
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
import { episodeStoreOn, procedureStoreOn } from './candidate-stores.js';
import { ADAPTER, exec, Params, type TransactionSql } from './connection.js';
import { episodicMigrations, structuredMigrations } from './migrations.js';
import { iso } from './queries.js';
import {
  compositeKey,
  duplicateId,
  handleOf,
  isUniqueViolation,
  KeyedQueue,
  openRuntime,
  type PortRuntime,
  type PostgresHandle,
  type PostgresPortOptions,
  rowLimit,
} from './runtime.js';

const parse = <T>(text: string): T => JSON.parse(text) as T;

/**
 * `topic` matches a nullable parameter (null = the global scope). The same two expressions as the unique indexes of
 * facts and goals, so those indexes serve the lookups.
 */
const topicIs = (param: string, column = 'topic') =>
  `(${column} IS NULL) = (${param}::text IS NULL) AND coalesce(${column}, '') = coalesce(${param}::text, '')`;

/** Serialise the writers of one (space, user, topic) for the rest of the transaction. */
async function lockScope(tx: TransactionSql, rt: PortRuntime, what: string, ...parts: string[]): Promise<void> {
  await exec(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `${what}|${compositeKey(rt.schema, ...parts)}`,
  ]);
}

// ---------- messages ----------

interface MessageRow {
  id: string;
  sessionid: string;
  role: string;
  content: string;
  toolcalls: string;
  name: string | null;
  metadata: string;
  createdat: string;
}

const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  sessionId: row.sessionid,
  role: row.role as MessageRole,
  content: row.content,
  toolCalls: parse<ToolCall[]>(row.toolcalls),
  name: row.name,
  metadata: parse<JsonObject>(row.metadata),
  createdAt: row.createdat,
});

function messageStore(rt: PortRuntime): MessageStore {
  const { sql, s } = rt;
  const COLS = `id, session_id AS sessionid, role, content, tool_calls::text AS toolcalls, name, metadata::text AS metadata,
    ${iso('created_at')} AS createdat`;
  // Saves of one session from this instance commit in call order (the port orders messages by commit).
  const saves = new KeyedQueue();
  return {
    name: ADAPTER,
    save(space, m) {
      return saves.run(compositeKey(space, m.sessionId), () =>
        rt.run('saving a message', async () => {
          try {
            await exec(
              sql,
              `INSERT INTO ${s}.messages (space, id, session_id, role, content, tool_calls, name, metadata, created_at)
               VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8::text::jsonb, $9::text::timestamptz)`,
              [
                space,
                m.id,
                m.sessionId,
                m.role,
                m.content,
                JSON.stringify(m.toolCalls),
                m.name,
                JSON.stringify(m.metadata),
                m.createdAt,
              ],
            );
          } catch (error) {
            if (isUniqueViolation(error, 'messages_pkey')) throw duplicateId('message', m.id, error);
            throw error;
          }
        }),
      );
    },
    recent(space, sessionId, limit) {
      return rt.run('reading messages', async () => {
        const n = rowLimit(limit);
        if (n === 0) return [];
        const rows = await exec<MessageRow[]>(
          sql,
          `SELECT ${COLS} FROM ${s}.messages WHERE space = $1 AND session_id = $2 ORDER BY rid DESC LIMIT $3`,
          [space, sessionId, n],
        );
        return rows.reverse().map(toMessage);
      });
    },
    count(space, sessionId) {
      return rt.run('counting messages', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `SELECT count(*)::int AS n FROM ${s}.messages WHERE space = $1 AND session_id = $2`,
          [space, sessionId],
        );
        return Number(row?.n ?? 0);
      });
    },
    deleteBefore(space, sessionId, keepLast) {
      return rt.run('deleting messages', async () => {
        const keep = Math.max(0, Math.floor(keepLast));
        // One statement: everything older than the keep-th newest message goes (nothing when there are fewer).
        const [row] = await exec<{ n: number }[]>(
          sql,
          keep > 0
            ? `WITH d AS (
                 DELETE FROM ${s}.messages WHERE space = $1 AND session_id = $2 AND rid < (
                   SELECT rid FROM ${s}.messages WHERE space = $1 AND session_id = $2
                   ORDER BY rid DESC OFFSET $3 LIMIT 1)
                 RETURNING 1)
               SELECT count(*)::int AS n FROM d`
            : `WITH d AS (DELETE FROM ${s}.messages WHERE space = $1 AND session_id = $2 RETURNING 1)
               SELECT count(*)::int AS n FROM d`,
          keep > 0 ? [space, sessionId, keep - 1] : [space, sessionId],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}

// ---------- facts ----------

interface FactRow {
  userid: string;
  topic: string | null;
  key: string;
  value: string;
  source: string;
  createdat: string;
  updatedat: string;
}

const FACT_COLS = `f.user_id AS userid, f.topic AS topic, f.key AS key, f.value::text AS value, f.source AS source,
  ${iso('f.created_at')} AS createdat, ${iso('f.updated_at')} AS updatedat`;

const toFact = (row: FactRow): Fact => ({
  user: row.userid,
  topic: row.topic,
  key: row.key,
  value: parse<JsonValue>(row.value),
  source: row.source as FactSource,
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

function factStore(rt: PortRuntime): FactStore {
  const { sql, s } = rt;
  const find = async (space: string, user: string, key: string, topic: string | null) => {
    const [row] = await exec<FactRow[]>(
      sql,
      `SELECT ${FACT_COLS} FROM ${s}.facts f WHERE f.space = $1 AND f.user_id = $2 AND f.key = $3 AND ${topicIs('$4', 'f.topic')}`,
      [space, user, key, topic],
    );
    return row === undefined ? null : toFact(row);
  };
  return {
    name: ADAPTER,
    upsert(space, w) {
      return rt.run('writing a fact', async () => {
        // The priority rule is part of the statement: a lower-priority source matches no row and writes nothing.
        // `xmax = 0` tells a fresh row from an updated one.
        const [row] = await exec<(FactRow & { inserted: boolean })[]>(
          sql,
          `INSERT INTO ${s}.facts AS f (space, user_id, topic, key, value, source, priority, created_at, updated_at)
           VALUES ($1, $2, $3::text, $4, $5::text::jsonb, $6, $7, $8::text::timestamptz, $8::text::timestamptz)
           ON CONFLICT (space, user_id, (topic IS NULL), (coalesce(topic, '')), key) DO UPDATE SET
             value = excluded.value, source = excluded.source, priority = excluded.priority,
             updated_at = excluded.updated_at
           WHERE excluded.priority >= f.priority
           RETURNING ${FACT_COLS}, (f.xmax = 0) AS inserted`,
          [space, w.user, w.topic, w.key, JSON.stringify(w.value), w.source, factPriority(w.source), w.at],
        );
        if (row !== undefined) return { status: row.inserted ? 'created' : 'updated', fact: toFact(row) } as const;
        const kept = await find(space, w.user, w.key, w.topic);
        if (kept === null)
          throw new MemError('CONFLICT', `${ADAPTER}: fact "${w.key}" changed meanwhile; retry.`, { retryable: true });
        return { status: 'kept', fact: kept } as const;
      });
    },
    get(space, user, topic) {
      return rt.run('reading facts', async () => {
        const rows = await exec<FactRow[]>(
          sql,
          `SELECT ${FACT_COLS} FROM ${s}.facts f WHERE f.space = $1 AND f.user_id = $2 AND (f.topic IS NULL OR f.topic = $3::text)`,
          [space, user, topic ?? null],
        );
        return mergeFacts(rows.map(toFact), topic);
      });
    },
    find(space, user, key, topic) {
      return rt.run('reading a fact', () => find(space, user, key, topic));
    },
    delete(space, user, key, topic) {
      return rt.run('deleting a fact', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.facts WHERE space = $1 AND user_id = $2 AND key = $3 AND ${topicIs('$4')} RETURNING 1 AS one`,
          [space, user, key, topic],
        );
        return rows.length > 0;
      });
    },
    deleteUser(space, user) {
      return rt.run('deleting facts', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH d AS (DELETE FROM ${s}.facts WHERE space = $1 AND user_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [space, user],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}

// ---------- goals ----------

interface GoalRow {
  id: string;
  userid: string;
  topic: string | null;
  goal: string;
  status: string;
  metadata: string;
  createdat: string;
  updatedat: string;
}

const GOAL_COLS = `id, user_id AS userid, topic, goal, status, metadata::text AS metadata, ${iso('created_at')} AS createdat,
  ${iso('updated_at')} AS updatedat`;

const toGoal = (row: GoalRow): Goal => ({
  id: row.id,
  user: row.userid,
  topic: row.topic,
  goal: row.goal,
  status: row.status as GoalStatus,
  metadata: parse<JsonObject>(row.metadata),
  createdAt: row.createdat,
  updatedAt: row.updatedat,
});

function goalStore(rt: PortRuntime): GoalStore {
  const { sql, s } = rt;
  const scopeLock = (tx: TransactionSql, space: string, user: string, topic: string | null) =>
    lockScope(tx, rt, 'goal', space, user, topic ?? '');
  return {
    name: ADAPTER,
    setActive(space, g) {
      return rt.run('setting the active goal', async () => {
        try {
          // The scope's lock first: the UPDATE then reads after every earlier setActive of the scope committed, so
          // two writers never leave two active goals (the partial unique index goals_active is the backstop).
          const result = await sql.begin(async (tx) => {
            await scopeLock(tx, space, g.user, g.topic);
            const [replaced] = await exec<GoalRow[]>(
              tx,
              `UPDATE ${s}.goals SET status = 'replaced', updated_at = $1::text::timestamptz
               WHERE space = $2 AND user_id = $3 AND ${topicIs('$4')} AND status = 'active'
               RETURNING ${GOAL_COLS}`,
              [g.at, space, g.user, g.topic],
            );
            const [inserted] = await exec<GoalRow[]>(
              tx,
              `INSERT INTO ${s}.goals (space, id, user_id, topic, goal, status, metadata, created_at, updated_at)
               VALUES ($1, $2, $3, $4::text, $5, 'active', $6::text::jsonb, $7::text::timestamptz, $7::text::timestamptz)
               RETURNING ${GOAL_COLS}`,
              [space, g.id, g.user, g.topic, g.goal, JSON.stringify(g.metadata), g.at],
            );
            return { goal: toGoal(inserted as GoalRow), replaced: replaced === undefined ? null : toGoal(replaced) };
          });
          return result as { goal: Goal; replaced: Goal | null };
        } catch (error) {
          if (isUniqueViolation(error, 'goals_pkey')) throw duplicateId('goal', g.id, error);
          throw error;
        }
      });
    },
    getActive(space, user, topic) {
      return rt.run('reading the active goal', async () => {
        const [row] = await exec<GoalRow[]>(
          sql,
          `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 AND ${topicIs('$3')} AND status = 'active'`,
          [space, user, topic],
        );
        return row === undefined ? null : toGoal(row);
      });
    },
    finish(space, user, topic, status, at) {
      return rt.run('finishing a goal', async () => {
        const row = await sql.begin(async (tx) => {
          await scopeLock(tx, space, user, topic);
          const [updated] = await exec<GoalRow[]>(
            tx,
            `UPDATE ${s}.goals SET status = $1, updated_at = $2::text::timestamptz
             WHERE space = $3 AND user_id = $4 AND ${topicIs('$5')} AND status = 'active'
             RETURNING ${GOAL_COLS}`,
            [status, at, space, user, topic],
          );
          return updated ?? null;
        });
        return row === null ? null : toGoal(row as GoalRow);
      });
    },
    list(space, user, options = {}) {
      return rt.run('listing goals', async () => {
        const n = rowLimit(options.limit);
        if (n === 0) return [];
        const order = 'ORDER BY created_at DESC, rid DESC';
        const rows =
          options.topic === undefined
            ? await exec<GoalRow[]>(
                sql,
                `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 ${order} LIMIT $3`,
                [space, user, n],
              )
            : await exec<GoalRow[]>(
                sql,
                `SELECT ${GOAL_COLS} FROM ${s}.goals WHERE space = $1 AND user_id = $2 AND ${topicIs('$3')} ${order} LIMIT $4`,
                [space, user, options.topic, n],
              );
        return rows.map(toGoal);
      });
    },
    deleteUser(space, user) {
      return rt.run('deleting goals', async () => {
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH d AS (DELETE FROM ${s}.goals WHERE space = $1 AND user_id = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [space, user],
        );
        return Number(row?.n ?? 0);
      });
    },
  };
}

// ---------- sessions by prefix (summaries, session state, phases, tool events) ----------

/**
 * Delete every row of a space whose session id starts with a prefix; returns how many. `starts_with` compares
 * literally (`%`, `_` and `\` are not wildcards, unlike in `LIKE`); a NULL session id never matches.
 */
async function deleteSessionRows(rt: PortRuntime, table: string, space: string, prefix: string): Promise<number> {
  const [row] = await exec<{ n: number }[]>(
    rt.sql,
    `WITH d AS (DELETE FROM ${rt.s}.${table} WHERE space = $1 AND starts_with(session_id, $2) RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [space, prefix],
  );
  return Number(row?.n ?? 0);
}

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

function summaryStore(rt: PortRuntime): SummaryStore {
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

function userStore(rt: PortRuntime): UserStore {
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

function sessionStateStore(rt: PortRuntime): SessionStateStore {
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

function phaseStore(rt: PortRuntime): PhaseStore {
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

function toolEventStore(rt: PortRuntime): ToolEventStore {
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

// ---------- the bundle ----------

/** Every structured port on one connection, plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresStructuredStores extends StructuredStores, PostgresHandle {}

/** The ten structured ports over a runtime whose families include `structured` and `episodic`. */
export function structuredStoresOn(rt: PortRuntime): PostgresStructuredStores {
  return {
    ...handleOf(rt),
    messages: messageStore(rt),
    facts: factStore(rt),
    goals: goalStore(rt),
    summaries: summaryStore(rt),
    users: userStore(rt),
    sessionState: sessionStateStore(rt),
    phases: phaseStore(rt),
    toolEvents: toolEventStore(rt),
    episodes: episodeStoreOn(rt),
    procedures: procedureStoreOn(rt),
  };
}

/**
 * Every structured port of docs/structured.md on one PostgreSQL connection: `{ url }` creates a pool (ended by `close()`),
 * `{ sql }` shares a client (never ended here). Pending migrations of the `structured` and `episodic` families run on
 * open unless `autoMigrate` is false. The ports are unguarded, like every adapter: the stack wraps them with
 * `guardStructuredStores`.
 */
export async function createPostgresStructuredStores(options: PostgresPortOptions): Promise<PostgresStructuredStores> {
  return structuredStoresOn(
    await openRuntime(options, [structuredMigrations, episodicMigrations], 'structured stores'),
  );
}
