import type { CompactionStepHook, TranscriptStore } from '@mem/core/adapter';
import { afterEach, describe } from 'vitest';
import { appendAndArchiveTests } from './appends-and-archives.js';
import { crashAndRaceTests } from './crashes-and-races.js';
import type { TranscriptStoreFactory, TranscriptStoreFixture, TranscriptStoreTestOptions } from './fixture.js';
import { removalAndServiceTests } from './removal-and-service.js';
import { writeAndRefusalTests } from './writes-and-refusals.js';

export type { TranscriptStoreFactory, TranscriptStoreFixture, TranscriptStoreTestOptions } from './fixture.js';

/**
 * The conformance suite of the TranscriptStore port (docs/conversations.md). Every adapter runs it with a factory of fresh
 * stores; `openAnother` opens a second instance on the same data, as a second process would.
 *
 * The tests live in files by theme (./writes-and-refusals.ts, ./appends-and-archives.ts, ./crashes-and-races.ts,
 * ./removal-and-service.ts), each a function given the set-up below and called in this order inside the one `describe`.
 */
export function describeTranscriptStore(
  name: string,
  factory: TranscriptStoreFactory,
  options: { timeoutMs?: number } = {},
): void {
  describe(`TranscriptStore conformance: ${name}`, { timeout: options.timeoutMs ?? 120_000 }, () => {
    let fixture: TranscriptStoreFixture | undefined;
    const opened: TranscriptStore[] = [];
    let hook: CompactionStepHook | undefined;

    async function setup(): Promise<TranscriptStoreFixture> {
      hook = undefined;
      fixture = await factory({ onCompactionStep: (step) => hook?.(step) });
      return fixture;
    }

    async function another(f: TranscriptStoreFixture, o?: TranscriptStoreTestOptions): Promise<TranscriptStore> {
      const s = await f.openAnother(o);
      opened.push(s);
      return s;
    }

    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      if (fixture) {
        await fixture.store.close();
        await fixture.cleanup();
        fixture = undefined;
      }
    });

    const suite = {
      setup,
      another,
      setHook: (next: CompactionStepHook | undefined) => {
        hook = next;
      },
    };
    writeAndRefusalTests(suite);
    appendAndArchiveTests(suite);
    crashAndRaceTests(suite);
    removalAndServiceTests(suite);
  });
}
