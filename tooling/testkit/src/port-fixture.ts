import { MemError, type MemErrorCode } from '@mem/core';
import { expect } from 'vitest';

/**
 * What a factory gives a port suite: a fresh, empty store and how to clean it up. `openAnother` opens another,
 * independent instance on the same database (for persistence and concurrency tests); `cleanup` must also close
 * every instance `openAnother` opened. Suites that need `openAnother` skip those checks without it.
 */
export interface PortFixture<S> {
  store: S;
  cleanup: () => Promise<void>;
  openAnother?: () => Promise<S>;
  /**
   * Another instance on the same data whose connection is gone (opened, then closed): a durable store must answer
   * it with `STORE_UNAVAILABLE`. Suites that check this skip it without the function (stores in process memory).
   */
  unreachable?: () => Promise<S>;
}

export type PortFactory<S> = () => Promise<PortFixture<S>>;

export interface PortSuiteOptions {
  timeoutMs?: number;
}

/** Await a promise that must fail with a MemError of `code`; returns the error for further checks. */
export async function expectMemError(promise: Promise<unknown>, code: MemErrorCode): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    if (!MemError.is(error)) throw error;
    expect(error.code, error.message).toBe(code);
    return error;
  }
  throw new Error(`expected MemError ${code}, but the call succeeded`);
}

/** ISO time `minutes` after 2026-01-01T00:00Z. */
export function at(minutes: number): string {
  return new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
}

/** Run a suite's test body with a fresh fixture, always cleaning up. */
export async function withFixture<S>(
  factory: PortFactory<S>,
  body: (fixture: PortFixture<S>) => Promise<void>,
): Promise<void> {
  const fixture = await factory();
  try {
    await body(fixture);
  } finally {
    await fixture.cleanup();
  }
}
