/** The schema steps of the transcript and notebook ports on PostgreSQL. */
import type { Migration, PortMigrations } from './types.js';

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
