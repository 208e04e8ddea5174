/** The schema step of the memory graph on PostgreSQL (docs/graph.md), in the `structured` family. */
import type { Migration } from './types.js';

/**
 * Entities with one row per resolution key (`graph_keys`: a name or alias is one index lookup), observations,
 * relations indexed on both ends, and the log. Times are timestamptz, lists text[], the log's detail jsonb.
 */
export const graphV2: Migration = {
  version: 2,
  name: 'graph',
  async up(tx, { schema: s }) {
    await tx.unsafe(`
      CREATE TABLE ${s}.graph_entities (
        space          text NOT NULL,
        id             text COLLATE "C" NOT NULL,
        scope          text NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id       text NOT NULL,
        user_id        text,
        name           text NOT NULL,
        entity_type    text NOT NULL,
        aliases        text[] NOT NULL,
        keys           text[] NOT NULL,
        search_text    text NOT NULL,
        merged_into    text,
        valid_from     timestamptz,
        valid_to       timestamptz,
        recorded_at    timestamptz NOT NULL,
        invalidated_at timestamptz,
        evidence       text[] NOT NULL,
        updated_at     timestamptz NOT NULL,
        CONSTRAINT graph_entities_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX graph_entities_agent ON ${s}.graph_entities (space, agent_id);
      CREATE INDEX graph_entities_user ON ${s}.graph_entities (space, user_id) WHERE user_id IS NOT NULL;
      CREATE TABLE ${s}.graph_keys (
        space     text NOT NULL,
        key       text COLLATE "C" NOT NULL,
        entity_id text COLLATE "C" NOT NULL,
        CONSTRAINT graph_keys_pkey PRIMARY KEY (space, key, entity_id)
      );
      CREATE INDEX graph_keys_entity ON ${s}.graph_keys (space, entity_id);
      CREATE TABLE ${s}.graph_observations (
        space          text NOT NULL,
        id             text COLLATE "C" NOT NULL,
        entity_id      text COLLATE "C" NOT NULL,
        text           text NOT NULL,
        agent_id       text NOT NULL,
        recorded_at    timestamptz NOT NULL,
        invalidated_at timestamptz,
        evidence       text[] NOT NULL,
        CONSTRAINT graph_observations_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX graph_observations_entity ON ${s}.graph_observations (space, entity_id, recorded_at, id);
      CREATE INDEX graph_observations_agent ON ${s}.graph_observations (space, agent_id);
      CREATE TABLE ${s}.graph_relations (
        space          text NOT NULL,
        id             text COLLATE "C" NOT NULL,
        scope          text NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id       text NOT NULL,
        user_id        text,
        from_id        text COLLATE "C" NOT NULL,
        relation_type  text NOT NULL,
        to_id          text COLLATE "C" NOT NULL,
        valid_from     timestamptz,
        valid_to       timestamptz,
        recorded_at    timestamptz NOT NULL,
        invalidated_at timestamptz,
        evidence       text[] NOT NULL,
        CONSTRAINT graph_relations_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX graph_relations_from ON ${s}.graph_relations (space, from_id);
      CREATE INDEX graph_relations_to ON ${s}.graph_relations (space, to_id);
      CREATE INDEX graph_relations_agent ON ${s}.graph_relations (space, agent_id);
      CREATE TABLE ${s}.graph_log (
        space     text NOT NULL,
        id        text COLLATE "C" NOT NULL,
        record_id text COLLATE "C" NOT NULL,
        kind      text NOT NULL,
        decision  text NOT NULL,
        at        timestamptz NOT NULL,
        by_name   text NOT NULL,
        agent_id  text NOT NULL,
        evidence  text[] NOT NULL,
        detail    jsonb NOT NULL,
        CONSTRAINT graph_log_pkey PRIMARY KEY (space, id)
      );
      CREATE INDEX graph_log_record ON ${s}.graph_log (space, record_id, at, id);
    `);
  },
};
