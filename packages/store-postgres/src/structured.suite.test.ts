import type { StructuredStores } from '@mem/core/adapter';
import {
  describeEpisodeStore,
  describeFactStore,
  describeGoalStore,
  describeGraphStore,
  describeMessageStore,
  describePhaseStore,
  describeProcedureStore,
  describeSessionStateStore,
  describeSummaryStore,
  describeToolEventStore,
  describeUserStore,
  type PortFactory,
} from '@mem/testkit';
import { afterAll, beforeAll } from 'vitest';
import { type SharedSchema, sharedSchema, url } from '../test/helpers.js';
import {
  createPostgresEpisodeStore,
  createPostgresProcedureStore,
  createPostgresStructuredStores,
  type PostgresHandle,
} from './index.js';

// One migrated schema for the file, emptied before each test. The store under test shares the file's pool;
// `openAnother` opens a separate postgres.js pool on the same schema (another bundle), so the two-writer tests
// really use two pools; `cleanup` closes them.
let db: SharedSchema;
beforeAll(async () => {
  db = await sharedSchema('structured');
});
afterAll(() => db.drop());

function fixture<S>(
  open: (options: { url?: string; sql?: typeof db.sql; schema: string; max?: number }) => Promise<{
    store: S;
    handle: PostgresHandle;
  }>,
): PortFactory<S> {
  return async () => {
    await db.wipe();
    const first = await open({ sql: db.sql, schema: db.schema });
    const handles = [first.handle];
    return {
      store: first.store,
      openAnother: async () => {
        const other = await open({ url, schema: db.schema, max: 2 });
        handles.push(other.handle);
        return other.store;
      },
      unreachable: async () => {
        const closed = await open({ url, schema: db.schema, max: 1 });
        await closed.handle.close();
        return closed.store;
      },
      cleanup: async () => {
        for (const h of handles.splice(0)) await h.close();
      },
    };
  };
}

/** A port of the structured bundle. */
function bundled<K extends keyof StructuredStores>(port: K): PortFactory<StructuredStores[K]> {
  return fixture(async (options) => {
    const bundle = await createPostgresStructuredStores(options);
    return { store: bundle[port], handle: bundle };
  });
}

describeMessageStore('postgres', bundled('messages'));
describeFactStore('postgres', bundled('facts'));
describeGoalStore('postgres', bundled('goals'));
describeSummaryStore('postgres', bundled('summaries'));
describeUserStore('postgres', bundled('users'));
describeSessionStateStore('postgres', bundled('sessionState'));
describePhaseStore('postgres', bundled('phases'));
describeToolEventStore('postgres', bundled('toolEvents'));
describeGraphStore('postgres', bundled('graph'));
// The standalone factories of the candidate stores.
describeEpisodeStore(
  'postgres',
  fixture(async (options) => {
    const store = await createPostgresEpisodeStore(options);
    return { store, handle: store };
  }),
);
describeProcedureStore(
  'postgres',
  fixture(async (options) => {
    const store = await createPostgresProcedureStore(options);
    return { store, handle: store };
  }),
);
