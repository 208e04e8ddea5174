/** The memory graph's port on PostgreSQL: the shared statements of @mem/core/adapter, each write one transaction. */
import { type GraphStore, sqlGraphStore } from '@mem/core/adapter';
import type { PortRuntime } from '../runtime.js';
import { postgresDialect, postgresRunner } from '../sql-layer.js';

export const graphStore = (rt: PortRuntime): GraphStore => sqlGraphStore(postgresDialect(rt), postgresRunner(rt));
