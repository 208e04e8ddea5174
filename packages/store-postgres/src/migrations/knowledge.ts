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

/** The knowledge port's steps (chunks, versions, ratings, meta). */
export const knowledgeMigrations: PortMigrations = { port: 'knowledge', steps: [knowledgeV1, ratingsCountedV2] };
