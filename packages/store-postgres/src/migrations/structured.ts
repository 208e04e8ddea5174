/** The schema steps of the structured ports on PostgreSQL: the small ports, then episodes and procedures. */
import { graphV2 } from './graph.js';
import type { Migration, PortMigrations } from './types.js';

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

/** The steps of the small structured ports (messages, facts, goals, summaries, users, session state, phases, tool events) and the graph. */
export const structuredMigrations: PortMigrations = { port: 'structured', steps: [structuredV1, graphV2] };

/**
 * The columns a candidate table (episodes, procedures) is searched by: `search_text` (the core's search text of the
 * record), its english tsvector, and the vector with the model that made it; `v` is the schema pgvector lives in.
 */
const searchColumns = (v: string) =>
  [
    'search_text     text NOT NULL,',
    "fts             tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, search_text)) STORED,",
    `embedding       ${v}.vector,`,
    'embedding_model text,',
  ].join('\n        ');

/** The indexes of those columns on `table` in schema `s`: the tsvector's GIN index and the vectors of each model. */
const searchIndexes = (s: string, table: string) =>
  [
    `CREATE INDEX ${table}_fts ON ${s}.${table} USING gin (fts);`,
    `CREATE INDEX ${table}_model ON ${s}.${table} (space, embedding_model) WHERE embedding IS NOT NULL;`,
  ].join('\n      ');

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
        ${searchColumns(v)}
        CONSTRAINT episodes_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX episodes_recent ON ${s}.episodes (space, happened_at DESC, id DESC);
      CREATE INDEX episodes_tags ON ${s}.episodes USING gin (tags);
      ${searchIndexes(s, 'episodes')}

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
        ${searchColumns(v)}
        CONSTRAINT procedures_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX procedures_recent ON ${s}.procedures (space, created_at DESC, id DESC);
      ${searchIndexes(s, 'procedures')}
    `);
  },
};

/** The episode and procedure ports' steps (they need pgvector). */
export const episodicMigrations: PortMigrations = { port: 'episodic', steps: [episodicV1] };
