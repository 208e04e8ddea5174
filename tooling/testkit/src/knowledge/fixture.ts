import type { Principal, Stack } from '@mem/core';
import type { KnowledgeStore, ManualClock } from '@mem/core/adapter';
import { expectMemError } from '../port-fixture.js';

/** What a factory gives the suite: a fresh, empty store and how to clean it up. */
export interface KnowledgeStoreFixture {
  store: KnowledgeStore;
  cleanup: () => Promise<void>;
  /** Open another, independent instance on the same database (for persistence and concurrency tests). */
  openAnother?: () => Promise<KnowledgeStore>;
  /**
   * Open a store with `autoMigrate: false` on a database nothing has migrated yet (a new file or schema); a store
   * without schema migrations leaves it out. The suite closes it; `cleanup` removes its data.
   */
  openUnmigrated?: () => Promise<KnowledgeStore & { migrate(): Promise<{ applied: readonly unknown[] }> }>;
}

export type KnowledgeStoreFactory = () => Promise<KnowledgeStoreFixture>;

/** How a store runs the suite. */
export interface KnowledgeStoreSuiteOptions {
  timeoutMs?: number;
  /**
   * Whether a closed store refuses every call with `STORE_UNAVAILABLE` (default true: every store with a database
   * behind it). A store in process memory has nothing to lose and keeps working; it passes false.
   */
  unavailableWhenClosed?: boolean;
}

/**
 * What each group of the suite gets from `describeKnowledgeStore`: the one set-up of a test and the state it made.
 * A test calls `setup` (a store behind a stack) or `open` (a bare store) once; `fixture` and `clock` are then that
 * test's, and every store pushed on `extra` is closed after it.
 */
export interface KnowledgeSuite {
  setup(embedderDim?: number): Promise<Stack>;
  open(): Promise<KnowledgeStoreFixture>;
  fixture(): KnowledgeStoreFixture;
  clock(): ManualClock;
  extra: KnowledgeStore[];
  options: KnowledgeStoreSuiteOptions;
}

export const lead: Principal = { space: 'acme', agentId: 'lead-1', role: 'lead' };
export const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };
export const bob: Principal = { space: 'acme', agentId: 'bob', role: 'worker' };
export const other: Principal = { space: 'globex', agentId: 'alice', role: 'worker' };

export const expectCode = expectMemError;

export function longDocument(sections: number, paragraphsPer = 6): string {
  const parts: string[] = ['# Operations handbook\n\nThis handbook collects how the platform team runs production.\n'];
  for (let s = 0; s < sections; s++) {
    parts.push(`\n## Section ${s}: service ${s}\n\n`);
    for (let p = 0; p < paragraphsPer; p++) {
      parts.push(
        `Paragraph ${p} of section ${s}. The service number ${s} restarts nightly, logs to the central collector, and pages the on-call engineer when latency passes the budget. Owners review dashboards weekly.\n\n`,
      );
    }
  }
  return parts.join('');
}
