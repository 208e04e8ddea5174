/** The memory graph's port on SQLite: the shared statements of @mem/core/adapter, each write one BEGIN IMMEDIATE transaction. */
import { type GraphStore, sqlGraphStore } from '@mem/core/adapter';
import type { SqliteLease } from '../connection.js';
import { sqliteDialect, sqliteRunner } from '../sql-layer.js';

export const graphStore = (c: SqliteLease): GraphStore => sqlGraphStore(sqliteDialect, sqliteRunner(c));
