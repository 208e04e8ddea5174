/** The knowledge port's schema steps on PostgreSQL. */
import type { Migration, PortMigrations } from './types.js';

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

/**
 * Memory that forms itself (docs/formation.md): every chunk gets its world time (`valid_from`, `valid_to`), the time it
 * was closed (`invalidated_at`), its place in a supersede chain, the end user it is about and its claim (jsonb); the
 * decision log (`formation_log`) keeps why each formed memory is believed, or was closed. Nullable columns without a
 * default: adding them rewrites nothing, and the rows already stored read back as memories written on purpose (all
 * NULL). No index on the new chunk columns: every search arm starts from its own index (GIN, HNSW, the id list) and
 * the user and world-time conditions are cheap filters on rows it already reads, nearly all of which pass them.
 */
const formationV3: Migration = {
  version: 3,
  name: 'formation',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      ALTER TABLE ${s}.chunks
        ADD COLUMN valid_from     timestamptz,
        ADD COLUMN valid_to       timestamptz,
        ADD COLUMN invalidated_at timestamptz,
        ADD COLUMN supersedes     text COLLATE "C",
        ADD COLUMN superseded_by  text COLLATE "C",
        ADD COLUMN user_id        text,
        ADD COLUMN claim          jsonb;

      CREATE TABLE ${s}.formation_log (
        space          text NOT NULL,
        id             text COLLATE "C" NOT NULL,
        memory_id      text COLLATE "C" NOT NULL,
        decision       text NOT NULL,
        previous_id    text COLLATE "C",
        text           text NOT NULL,
        evidence       text[] NOT NULL DEFAULT '{}',
        extractor      text NOT NULL,
        model          text,
        prompt_version text NOT NULL,
        related        text[] NOT NULL DEFAULT '{}',
        agent_id       text NOT NULL,
        user_id        text,
        at             timestamptz NOT NULL,
        CONSTRAINT formation_log_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX formation_log_memory ON ${s}.formation_log (space, memory_id, at, id);
    `);
  },
};

/** The knowledge port's steps (chunks, versions, ratings, meta, formation_log). */
export const knowledgeMigrations: PortMigrations = {
  port: 'knowledge',
  steps: [knowledgeV1, ratingsCountedV2, formationV3],
};
