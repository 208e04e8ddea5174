/** The schema step of the memory graph on SQLite (docs/graph.md). */
import type { Migration } from './types.js';

/** The schema step the graph port requires. */
export const GRAPH_SCHEMA_VERSION = 9;

/**
 * Entities with one row per resolution key (`graph_keys`: a name or alias is one index lookup), observations,
 * relations indexed on both ends, and the log. Times are ISO-8601 UTC text; lists are JSON text.
 */
export const graphV9: Migration = {
  version: GRAPH_SCHEMA_VERSION,
  name: 'graph',
  up(db) {
    db.exec(`
      CREATE TABLE graph_entities (
        space          TEXT NOT NULL,
        id             TEXT NOT NULL,
        scope          TEXT NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id       TEXT NOT NULL,
        user_id        TEXT,
        name           TEXT NOT NULL,
        entity_type    TEXT NOT NULL,
        aliases        TEXT NOT NULL,
        keys           TEXT NOT NULL,
        search_text    TEXT NOT NULL,
        merged_into    TEXT,
        valid_from     TEXT,
        valid_to       TEXT,
        recorded_at    TEXT NOT NULL,
        invalidated_at TEXT,
        evidence       TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        PRIMARY KEY (space, id)
      ) WITHOUT ROWID;
      CREATE INDEX graph_entities_agent ON graph_entities (space, agent_id);
      CREATE INDEX graph_entities_user ON graph_entities (space, user_id) WHERE user_id IS NOT NULL;
      CREATE TABLE graph_keys (
        space     TEXT NOT NULL,
        key       TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        PRIMARY KEY (space, key, entity_id)
      ) WITHOUT ROWID;
      CREATE INDEX graph_keys_entity ON graph_keys (space, entity_id);
      CREATE TABLE graph_observations (
        space          TEXT NOT NULL,
        id             TEXT NOT NULL,
        entity_id      TEXT NOT NULL,
        text           TEXT NOT NULL,
        agent_id       TEXT NOT NULL,
        recorded_at    TEXT NOT NULL,
        invalidated_at TEXT,
        evidence       TEXT NOT NULL,
        PRIMARY KEY (space, id)
      ) WITHOUT ROWID;
      CREATE INDEX graph_observations_entity ON graph_observations (space, entity_id, recorded_at, id);
      CREATE INDEX graph_observations_agent ON graph_observations (space, agent_id);
      CREATE TABLE graph_relations (
        space          TEXT NOT NULL,
        id             TEXT NOT NULL,
        scope          TEXT NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id       TEXT NOT NULL,
        user_id        TEXT,
        from_id        TEXT NOT NULL,
        relation_type  TEXT NOT NULL,
        to_id          TEXT NOT NULL,
        valid_from     TEXT,
        valid_to       TEXT,
        recorded_at    TEXT NOT NULL,
        invalidated_at TEXT,
        evidence       TEXT NOT NULL,
        PRIMARY KEY (space, id)
      ) WITHOUT ROWID;
      CREATE INDEX graph_relations_from ON graph_relations (space, from_id);
      CREATE INDEX graph_relations_to ON graph_relations (space, to_id);
      CREATE INDEX graph_relations_agent ON graph_relations (space, agent_id);
      CREATE TABLE graph_log (
        space     TEXT NOT NULL,
        id        TEXT NOT NULL,
        record_id TEXT NOT NULL,
        kind      TEXT NOT NULL,
        decision  TEXT NOT NULL,
        at        TEXT NOT NULL,
        by_name   TEXT NOT NULL,
        agent_id  TEXT NOT NULL,
        evidence  TEXT NOT NULL,
        detail    TEXT NOT NULL,
        PRIMARY KEY (space, id)
      ) WITHOUT ROWID;
      CREATE INDEX graph_log_record ON graph_log (space, record_id, at, id);
    `);
  },
};
