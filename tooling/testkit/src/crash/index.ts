/**
 * Crash safety and concurrency harness (docs/conversations.md "a crash after add returns loses nothing", §8 reliability).
 *
 * Child side (`runHarnessChild`): a writer process opens the ports of one adapter and runs a workload, telling the
 * parent over IPC what it is about to do (`begin`) and, only after the awaited call returned, what was done (`ack`).
 * Parent side:
 *   - `crashCampaign`: start a writer, SIGKILL it after a random delay, reopen the store in this process and check
 *     that every acknowledged write is there (an edit: the acknowledged version, or the one that was in flight),
 *     that nothing else changed, and that the store opens and answers cleanly; repeat.
 *   - `soak`: N processes doing mixed operations (store, edit, move, delete, rate, search) on one database for a
 *     fixed time, then the final state is compared with the log of acknowledged operations: no lost update, no
 *     duplicate key, no error but the expected refusals (no SQLITE_BUSY or other store failure reaches a caller).
 * Each adapter provides one `OpenHarnessPorts` function, used by its child entry and by the parent.
 *
 * The harness is split by side: ./shared.ts (shapes and helpers), ./child.ts (the writers), ./checks.ts (the store
 * against the acknowledged log), ./campaign.ts (kill and check) and ./soak.ts (many writers at once).
 */

export { type CrashCampaignOptions, type CrashReport, crashCampaign } from './campaign.js';
export { runHarnessChild } from './child.js';
export {
  type CrashWorkload,
  EXPECTED_REFUSALS,
  type HarnessMessage,
  type HarnessOp,
  type HarnessPorts,
  type HarnessTarget,
  HarnessViolation,
  type HarnessWorkload,
  type OpenHarnessPorts,
} from './shared.js';
export { type SoakOptions, type SoakReport, soak } from './soak.js';
