/**
 * The per-user structured ports on SQLite: messages, facts (with source priority and merge) and goals. The statements
 * are the shared ones of @mem/core/adapter; a fact upsert and a goal change are one BEGIN IMMEDIATE transaction each.
 */
import {
  type FactStore,
  type GoalStore,
  type MessageStore,
  sqlFactStore,
  sqlGoalStore,
  sqlMessageStore,
} from '@mem/core/adapter';
import type { SqliteLease } from '../connection.js';
import { sqliteDialect, sqliteRunner } from '../sql-layer.js';

export const messageStore = (c: SqliteLease): MessageStore => sqlMessageStore(sqliteDialect, sqliteRunner(c));

export const factStore = (c: SqliteLease): FactStore => sqlFactStore(sqliteDialect, sqliteRunner(c));

export const goalStore = (c: SqliteLease): GoalStore => sqlGoalStore(sqliteDialect, sqliteRunner(c));
