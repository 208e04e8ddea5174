/**
 * The CI-sized crash campaigns of an adapter, one `it` per workload: writers in real processes SIGKILLed at random
 * points, every acknowledged write checked after each kill (see `crashCampaign`). `mem bench crash` runs the same with
 * hundreds of kills.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrashWorkload, crashCampaign, type HarnessTarget, type OpenHarnessPorts } from './crash/index.js';
import { bundleChild, type ChildProgram } from './processes.js';

export interface CrashCase {
  title: string;
  workload: CrashWorkload;
  kills: number;
  /** Where this case's store lives (a fresh file, folder or schema). */
  target(): HarnessTarget | Promise<HarnessTarget>;
  /** Extra checks of the store at rest after each kill (e.g. SQLite's integrity check). */
  inspect?(target: HarnessTarget): Promise<void>;
}

export function describeCrashCampaigns(
  name: string,
  options: {
    /** The writer's entry (a TypeScript file that calls `runHarnessChild`). */
    child: string;
    open: OpenHarnessPorts;
    cases: CrashCase[];
    /** Skip every case (say why with a console note): e.g. a database several processes cannot share. */
    skip?: boolean;
    /** Run after the last case (remove temp folders, drop schemas). */
    cleanup?(): void | Promise<void>;
  },
): void {
  describe.skipIf(!!options.skip)(`${name} under SIGKILL`, { timeout: 120_000 }, () => {
    let program: ChildProgram | undefined;
    beforeAll(async () => {
      program = await bundleChild(options.child);
    });
    afterAll(async () => {
      program?.dispose();
      await options.cleanup?.();
    });
    for (const c of options.cases) {
      it(`${c.title}: ${c.kills} kills, nothing acknowledged lost`, async () => {
        const target = await c.target();
        const report = await crashCampaign({
          program: program!,
          open: options.open,
          target,
          workload: c.workload,
          kills: c.kills,
          ...(c.inspect ? { inspect: () => c.inspect!(target) } : {}),
        });
        expect(report.kills).toBe(c.kills);
        // At least five kills in seven come after an acknowledged operation.
        expect(report.acked).toBeGreaterThanOrEqual(c.kills / 2);
      });
    }
  });
}
