import { MemError } from '@mem/core';
import { ADAPTER, quoteIdent, quoteSchema, type Sql, type TransactionSql } from './connection.js';

/** What a migration step gets besides the transaction: where to create things. */
export interface MigrationContext {
  /** The quoted schema that holds mem's tables, e.g. `"mem"`. */
  schema: string;
  /** The quoted schema of the pgvector extension (for qualified type and operator names); '' when not needed. */
  vectorSchema: string;
}

/**
 * One schema step of one port. Steps of a port are applied in `version` order inside one transaction per
 * `runMigrations` call, and recorded in `<schema>.schema_migrations` under (port, version).
 * A published step never changes: a port adds a new step instead.
 */
export interface Migration {
  version: number;
  name: string;
  /** True when the step needs the pgvector extension (it is created first when missing and allowed). */
  needsVector?: boolean;
  up(tx: TransactionSql, ctx: MigrationContext): Promise<void>;
}

/** The migration list of one port family (`knowledge`, `transcripts`, `notebooks`, `structured`, `episodic`). */
export interface PortMigrations {
  port: string;
  steps: readonly Migration[];
}

export interface MigrationResult {
  /** Steps applied by this call, in order (empty when the schema was already current). */
  applied: { port: string; version: number; name: string }[];
  /** Highest version recorded per port after the call. */
  current: Record<string, number>;
}

/** `pg_advisory_xact_lock(MIGRATION_LOCK, hashtext(schema))` serialises schema changes of one schema. */
export const MIGRATION_LOCK = 0x6d656d31;
/** `pg_advisory_xact_lock(EXTENSION_LOCK, 0)` serialises CREATE EXTENSION across schemas of one database. */
const EXTENSION_LOCK = 0x6d656d32;

const knowledgeV1: Migration = {
  version: 1,
  name: 'knowledge',
  needsVector: true,
  async up(tx, { schema: s, vectorSchema: v }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.chunks (
        id               text COLLATE "C" NOT NULL,
        doc_id           text COLLATE "C" NOT NULL,
        space            text NOT NULL,
        scope            text NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id         text NOT NULL,
        key              text COLLATE "C" NOT NULL,
        name             text NOT NULL,
        content          text NOT NULL,
        body_start       integer NOT NULL DEFAULT 0,
        chunk_index      integer NOT NULL,
        chunk_count      integer NOT NULL,
        source           text NOT NULL,
        tags             text[] NOT NULL DEFAULT '{}',
        embedding        ${v}.vector,
        embedding_model  text,
        content_hash     text NOT NULL,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        expires_at       timestamptz,
        access_count     integer NOT NULL DEFAULT 0,
        last_accessed_at timestamptz,
        alpha            double precision NOT NULL DEFAULT 1,
        beta             double precision NOT NULL DEFAULT 1,
        version          integer NOT NULL DEFAULT 1,
        fts              tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, name || ' ' || content)) STORED,
        CONSTRAINT chunks_pkey PRIMARY KEY (id, space)
      )`);
    await tx.unsafe(`
      CREATE UNIQUE INDEX chunks_key ON ${s}.chunks (space, scope, agent_id, key, chunk_index);
      CREATE INDEX chunks_doc ON ${s}.chunks (space, doc_id, chunk_index);
      CREATE INDEX chunks_hash ON ${s}.chunks (space, scope, agent_id, content_hash);
      CREATE INDEX chunks_prefix ON ${s}.chunks (space, key);
      CREATE INDEX chunks_scan ON ${s}.chunks (created_at, id);
      CREATE INDEX chunks_space_scan ON ${s}.chunks (space, created_at, id);
      CREATE INDEX chunks_expiry ON ${s}.chunks (expires_at) WHERE expires_at IS NOT NULL;
      CREATE INDEX chunks_tags ON ${s}.chunks USING gin (tags);
      CREATE INDEX chunks_fts ON ${s}.chunks USING gin (fts);

      CREATE TABLE ${s}.versions (
        vid         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        space       text NOT NULL,
        doc_id      text COLLATE "C" NOT NULL,
        version     integer NOT NULL,
        old_content text NOT NULL,
        old_key     text NOT NULL,
        intent      text NOT NULL,
        agent_id    text NOT NULL,
        at          timestamptz NOT NULL
      );
      CREATE INDEX versions_doc ON ${s}.versions (space, doc_id, version);

      CREATE TABLE ${s}.ratings (
        space    text NOT NULL,
        doc_id   text COLLATE "C" NOT NULL,
        task_id  text NOT NULL,
        useful   boolean NOT NULL,
        note     text,
        agent_id text NOT NULL,
        at       timestamptz NOT NULL,
        CONSTRAINT ratings_pkey PRIMARY KEY (space, doc_id, task_id)
      );

      CREATE TABLE ${s}.meta (
        key   text PRIMARY KEY,
        value text NOT NULL
      );
    `);
  },
};

/**
 * Ratings cannot be stuffed (issue 15): each rating row says whether it counts. A rater's newer vote on a memory
 * takes back its earlier counted ones (rows kept, uncounted); an author's votes on its own memory never count.
 */
const ratingsCountedV2: Migration = {
  version: 2,
  name: 'ratings-counted',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      ALTER TABLE ${s}.ratings ADD COLUMN counted boolean NOT NULL DEFAULT true;
      CREATE INDEX ratings_rater ON ${s}.ratings (space, doc_id, agent_id) WHERE counted;
    `);
  },
};

/** The knowledge port's steps (chunks, versions, ratings, meta). */
export const knowledgeMigrations: PortMigrations = { port: 'knowledge', steps: [knowledgeV1, ratingsCountedV2] };

/**
 * Transcripts (docs/conversations.md): a header row per (space, agent) with the next sequence number, the messages, and archives
 * (frozen copies). Times are kept as the ISO-8601 text the core validated, so a transcript round-trips exactly.
 */
const transcriptsV1: Migration = {
  version: 1,
  name: 'transcripts',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.transcripts (
        space           text NOT NULL,
        agent           text NOT NULL,
        conversation_id text NOT NULL,
        created_at      text NOT NULL,
        next_seq        bigint NOT NULL,
        CONSTRAINT transcripts_pkey PRIMARY KEY (space, agent)
      );
      CREATE TABLE ${s}.transcript_messages (
        space   text NOT NULL,
        agent   text NOT NULL,
        seq     bigint NOT NULL,
        role    text NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content text NOT NULL,
        at      text NOT NULL,
        CONSTRAINT transcript_messages_pkey PRIMARY KEY (space, agent, seq)
      );
      CREATE TABLE ${s}.transcript_archives (
        space           text NOT NULL,
        agent           text NOT NULL,
        id              text COLLATE "C" NOT NULL,
        archived_at     text COLLATE "C" NOT NULL,
        n               integer NOT NULL,
        conversation_id text NOT NULL,
        created_at      text NOT NULL,
        size            integer NOT NULL,
        CONSTRAINT transcript_archives_pkey PRIMARY KEY (space, agent, id),
        CONSTRAINT transcript_archives_slot UNIQUE (space, agent, archived_at, n)
      );
      CREATE TABLE ${s}.transcript_archive_messages (
        space      text NOT NULL,
        agent      text NOT NULL,
        archive_id text COLLATE "C" NOT NULL,
        seq        bigint NOT NULL,
        role       text NOT NULL,
        content    text NOT NULL,
        at         text NOT NULL,
        CONSTRAINT transcript_archive_messages_pkey PRIMARY KEY (space, agent, archive_id, seq),
        CONSTRAINT transcript_archive_messages_archive FOREIGN KEY (space, agent, archive_id)
          REFERENCES ${s}.transcript_archives (space, agent, id) ON DELETE CASCADE
      );
    `);
  },
};

/** The transcript port's steps. */
export const transcriptMigrations: PortMigrations = { port: 'transcripts', steps: [transcriptsV1] };

/** Notebooks (docs/notebooks.md): one row per file; user and topic are '' when absent (never a valid name). */
const notebooksV1: Migration = {
  version: 1,
  name: 'notebooks',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.notebook_files (
        space      text NOT NULL,
        agent      text NOT NULL,
        user_id    text NOT NULL,
        topic      text NOT NULL,
        path       text COLLATE "C" NOT NULL,
        content    text NOT NULL,
        version    text NOT NULL,
        size       integer NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT notebook_files_pkey PRIMARY KEY (space, agent, user_id, topic, path)
      );
    `);
  },
};

/** The notebook port's steps. */
export const notebookMigrations: PortMigrations = { port: 'notebooks', steps: [notebooksV1] };

/** The small structured ports (docs/structured.md). JSON values are jsonb; `rid` columns record insertion order. */
const structuredV1: Migration = {
  version: 1,
  name: 'structured',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.messages (
        space      text NOT NULL,
        id         text COLLATE "C" NOT NULL,
        rid        bigint GENERATED ALWAYS AS IDENTITY,
        session_id text NOT NULL,
        role       text NOT NULL,
        content    text NOT NULL,
        tool_calls jsonb NOT NULL,
        name       text,
        metadata   jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT messages_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX messages_session ON ${s}.messages (space, session_id, rid);

      CREATE TABLE ${s}.facts (
        space      text NOT NULL,
        user_id    text NOT NULL,
        topic      text,
        key        text COLLATE "C" NOT NULL,
        value      jsonb NOT NULL,
        source     text NOT NULL,
        priority   smallint NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE UNIQUE INDEX facts_key ON ${s}.facts (space, user_id, (topic IS NULL), (coalesce(topic, '')), key);

      CREATE TABLE ${s}.goals (
        space      text NOT NULL,
        id         text COLLATE "C" NOT NULL,
        rid        bigint GENERATED ALWAYS AS IDENTITY,
        user_id    text NOT NULL,
        topic      text,
        goal       text NOT NULL,
        status     text NOT NULL CHECK (status IN ('active', 'completed', 'abandoned', 'replaced')),
        metadata   jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT goals_pkey PRIMARY KEY (space, id)
      );
      CREATE UNIQUE INDEX goals_active ON ${s}.goals (space, user_id, (topic IS NULL), (coalesce(topic, '')))
        WHERE status = 'active';
      CREATE INDEX goals_user ON ${s}.goals (space, user_id, created_at DESC, rid DESC);

      CREATE TABLE ${s}.summaries (
        space            text NOT NULL,
        session_id       text NOT NULL,
        summary          text NOT NULL,
        messages_covered integer NOT NULL,
        version          integer NOT NULL,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        CONSTRAINT summaries_pkey PRIMARY KEY (space, session_id)
      );

      CREATE TABLE ${s}.users (
        space       text NOT NULL,
        external_id text NOT NULL,
        id          text NOT NULL,
        created_at  timestamptz NOT NULL,
        CONSTRAINT users_pkey PRIMARY KEY (space, external_id),
        CONSTRAINT users_id UNIQUE (space, id)
      );

      CREATE TABLE ${s}.session_state (
        space      text NOT NULL,
        session_id text NOT NULL,
        state      jsonb NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT session_state_pkey PRIMARY KEY (space, session_id)
      );

      CREATE TABLE ${s}.phases (
        rid        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        space      text NOT NULL,
        session_id text NOT NULL,
        phase      text NOT NULL,
        metadata   jsonb NOT NULL,
        at         timestamptz NOT NULL
      );
      CREATE INDEX phases_session ON ${s}.phases (space, session_id, rid);

      CREATE TABLE ${s}.tool_events (
        space      text NOT NULL,
        id         text COLLATE "C" NOT NULL,
        rid        bigint GENERATED ALWAYS AS IDENTITY,
        session_id text,
        tool       text NOT NULL,
        input      jsonb NOT NULL,
        output     jsonb NOT NULL,
        latency_ms double precision NOT NULL,
        error      text,
        at         timestamptz NOT NULL,
        CONSTRAINT tool_events_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX tool_events_time ON ${s}.tool_events (space, at, rid);
      CREATE INDEX tool_events_tool ON ${s}.tool_events (space, tool, at, rid);
      CREATE INDEX tool_events_session ON ${s}.tool_events (space, session_id, at, rid);
    `);
  },
};

/** The steps of the small structured ports (messages, facts, goals, summaries, users, session state, phases, tool events). */
export const structuredMigrations: PortMigrations = { port: 'structured', steps: [structuredV1] };

/**
 * Episodes and procedures (docs/structured.md): `search_text` holds exactly `episodeSearchText` / `procedureSearchText` of the
 * core, `fts` is its english tsvector (as the knowledge store's), `embedding` an untyped pgvector `vector` with the
 * model that made it.
 */
const episodicV1: Migration = {
  version: 1,
  name: 'episodic',
  needsVector: true,
  async up(tx, { schema: s, vectorSchema: v }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.episodes (
        space           text NOT NULL,
        id              text COLLATE "C" NOT NULL,
        summary         text NOT NULL,
        key_decisions   text[] NOT NULL,
        tools_used      text[] NOT NULL,
        outcome         text NOT NULL CHECK (outcome IN ('success', 'failure', 'partial', 'unknown')),
        session_id      text,
        happened_at     timestamptz NOT NULL,
        tags            text[] NOT NULL,
        metadata        jsonb NOT NULL,
        search_text     text NOT NULL,
        fts             tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_text)) STORED,
        embedding       ${v}.vector,
        embedding_model text,
        CONSTRAINT episodes_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX episodes_recent ON ${s}.episodes (space, happened_at DESC, id DESC);
      CREATE INDEX episodes_tags ON ${s}.episodes USING gin (tags);
      CREATE INDEX episodes_fts ON ${s}.episodes USING gin (fts);
      CREATE INDEX episodes_model ON ${s}.episodes (space, embedding_model) WHERE embedding IS NOT NULL;

      CREATE TABLE ${s}.procedures (
        space           text NOT NULL,
        id              text COLLATE "C" NOT NULL,
        name            text NOT NULL,
        description     text NOT NULL,
        trigger_text    text NOT NULL,
        steps           jsonb NOT NULL,
        success_count   integer NOT NULL,
        failure_count   integer NOT NULL,
        tags            text[] NOT NULL,
        metadata        jsonb NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL,
        search_text     text NOT NULL,
        fts             tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_text)) STORED,
        embedding       ${v}.vector,
        embedding_model text,
        CONSTRAINT procedures_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX procedures_recent ON ${s}.procedures (space, created_at DESC, id DESC);
      CREATE INDEX procedures_fts ON ${s}.procedures USING gin (fts);
      CREATE INDEX procedures_model ON ${s}.procedures (space, embedding_model) WHERE embedding IS NOT NULL;
    `);
  },
};

/** The episode and procedure ports' steps (they need pgvector). */
export const episodicMigrations: PortMigrations = { port: 'episodic', steps: [episodicV1] };

/** Every port's migrations this package ships, in the order they are applied. Later ports append here. */
export const migrations: readonly PortMigrations[] = [
  knowledgeMigrations,
  transcriptMigrations,
  notebookMigrations,
  structuredMigrations,
  episodicMigrations,
];

function checkSteps(ports: readonly PortMigrations[]): void {
  for (const { port, steps } of ports) {
    const seen = new Set<number>();
    for (const step of steps) {
      if (!Number.isSafeInteger(step.version) || step.version < 1) {
        throw new Error(`${ADAPTER}: migration ${port}/${step.name} has an invalid version ${step.version}`);
      }
      if (seen.has(step.version)) throw new Error(`${ADAPTER}: duplicate migration version ${port}/${step.version}`);
      seen.add(step.version);
    }
  }
}

/** Versions recorded in `<schema>.schema_migrations`, as `port/version` strings; empty when the table is missing. */
export async function appliedMigrations(sql: Sql | TransactionSql, schema: string): Promise<Map<string, number[]>> {
  const s = quoteSchema(schema);
  const out = new Map<string, number[]>();
  // A catalog scan, not to_regclass(): it reads with the statement's snapshot (and its lock processes pending
  // invalidations), so a table another process created while we waited for the migration lock is seen.
  const [table] = await sql.unsafe<{ t: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname = 'schema_migrations') AS t`,
    [schema],
  );
  if (!table?.t) return out;
  const rows = await sql.unsafe<{ port: string; version: number }[]>(
    `SELECT port, version FROM ${s}.schema_migrations ORDER BY port, version`,
  );
  for (const row of rows) {
    const list = out.get(row.port) ?? [];
    list.push(row.version);
    out.set(row.port, list);
  }
  return out;
}

function pending(ports: readonly PortMigrations[], applied: Map<string, number[]>): number {
  let n = 0;
  for (const { port, steps } of ports) {
    const done = new Set(applied.get(port) ?? []);
    for (const step of steps) if (!done.has(step.version)) n++;
  }
  return n;
}

function currentOf(applied: Map<string, number[]>): Record<string, number> {
  const current: Record<string, number> = {};
  for (const [port, versions] of applied) current[port] = Math.max(0, ...versions);
  return current;
}

/**
 * Make sure pgvector is enabled in the database and return the quoted schema it lives in. When it is missing,
 * try `CREATE EXTENSION vector` (serialised across processes); when that is impossible, say what to do.
 */
export async function ensureVectorExtension(tx: TransactionSql, target: string): Promise<string> {
  const find = async () => {
    const [row] = await tx.unsafe<{ schema: string }[]>(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = 'vector'`,
    );
    return row?.schema;
  };
  let schema = await find();
  if (schema !== undefined) return quoteIdent(schema);
  const [available] = await tx.unsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`,
  );
  const [info] = await tx.unsafe<{ db: string; version: string }[]>(
    `SELECT current_database() AS db, current_setting('server_version_num') AS version`,
  );
  const major = Math.floor(Number(info?.version ?? 0) / 10000) || 'N';
  if (!available || available.n === 0) {
    throw new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: the pgvector extension is not installed on the server at ${target}. Install pgvector for PostgreSQL ${major} on the server (e.g. the postgresql-${major}-pgvector package, or build it from source), then run \`CREATE EXTENSION vector;\` in database "${info?.db ?? ''}" or let mem create it with a role that may.`,
      { details: { target, missing: 'vector' } },
    );
  }
  await tx.unsafe('SELECT pg_advisory_xact_lock($1, 0)', [EXTENSION_LOCK]);
  schema = await find();
  if (schema !== undefined) return quoteIdent(schema);
  try {
    await tx.unsafe('SAVEPOINT mem_vector');
    await tx.unsafe('CREATE EXTENSION IF NOT EXISTS vector');
    await tx.unsafe('RELEASE SAVEPOINT mem_vector');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new MemError(
      'STORE_UNAVAILABLE',
      `${ADAPTER}: pgvector is installed on the server at ${target} but not enabled in database "${info?.db ?? ''}", and this role cannot enable it (${detail}). Ask an administrator to run \`CREATE EXTENSION vector;\` in that database.`,
      { cause: error, details: { target, missing: 'vector' } },
    );
  }
  schema = await find();
  if (schema === undefined)
    throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: CREATE EXTENSION vector had no effect.`);
  return quoteIdent(schema);
}

/**
 * Apply every step not yet recorded in `<schema>.schema_migrations` (created with the schema when missing).
 * All pending steps run in one transaction that first takes `pg_advisory_xact_lock(MIGRATION_LOCK,
 * hashtext(schema))` and re-reads the applied versions under it, so two processes starting at once apply each
 * step exactly once (the second waits, then finds nothing to do). A failing step rolls everything back.
 * A current schema costs two small reads and takes no lock.
 */
export async function runMigrations(
  sql: Sql,
  options: { schema?: string; ports?: readonly PortMigrations[]; target?: string } = {},
): Promise<MigrationResult> {
  const schema = options.schema ?? 'mem';
  const s = quoteSchema(schema);
  const ports = options.ports ?? migrations;
  const target = options.target ?? 'the server';
  checkSteps(ports);
  const before = await appliedMigrations(sql, schema);
  if (pending(ports, before) === 0) return { applied: [], current: currentOf(before) };
  return sql.begin(async (tx) => {
    // IF NOT EXISTS notices ("already exists, skipping") stay out of the caller's log.
    await tx.unsafe('SET LOCAL client_min_messages = warning');
    await tx.unsafe('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    const applied = await appliedMigrations(tx, schema);
    const todo = ports.flatMap(({ port, steps }) => {
      const have = new Set(applied.get(port) ?? []);
      return [...steps]
        .sort((a, b) => a.version - b.version)
        .filter((step) => !have.has(step.version))
        .map((step) => ({ port, step }));
    });
    // Prerequisites first, so a database without pgvector fails before anything is created.
    const vectorSchema = todo.some(({ step }) => step.needsVector) ? await ensureVectorExtension(tx, target) : '';
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      port       text NOT NULL,
      version    integer NOT NULL,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (port, version)
    )`);
    const done: MigrationResult['applied'] = [];
    for (const { port, step } of todo) {
      await step.up(tx, { schema: s, vectorSchema });
      await tx.unsafe(`INSERT INTO ${s}.schema_migrations (port, version, name) VALUES ($1, $2, $3)`, [
        port,
        step.version,
        step.name,
      ]);
      done.push({ port, version: step.version, name: step.name });
      applied.set(port, [...(applied.get(port) ?? []), step.version]);
    }
    return { applied: done, current: currentOf(applied) };
  });
}
