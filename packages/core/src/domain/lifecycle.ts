import type { Source } from '../types.js';
import { isLongtermKey } from './keys.js';

/** How a source ages (docs/lifecycles.md). `expiresAfterDays`/`halfLifeDays` null = never. */
export interface Tier {
  expiresAfterDays: number | null;
  halfLifeDays: number | null;
  quality: number;
}

export type TierTable = Record<Source, Tier>;

export const DEFAULT_TIERS: TierTable = {
  manual: { expiresAfterDays: null, halfLifeDays: null, quality: 1.5 },
  file_index: { expiresAfterDays: 30, halfLifeDays: 180, quality: 1.0 },
  task_completion: { expiresAfterDays: 7, halfLifeDays: 14, quality: 0.7 },
  session_summary: { expiresAfterDays: 3, halfLifeDays: 7, quality: 0.5 },
  // Formed from a conversation: kept current by supersession, never by age.
  distilled: { expiresAfterDays: null, halfLifeDays: null, quality: 1.2 },
};

const DAY_MS = 86_400_000;

/** The tier a memory behaves as: anything under `/longterm` behaves as `manual`, whatever its source. */
export function effectiveTier(source: Source, key: string, tiers: TierTable = DEFAULT_TIERS): Tier {
  return isLongtermKey(key) ? tiers.manual : tiers[source];
}

/** Expiry time (ISO) for a memory written at `writtenAt`, or null when it never expires. */
export function expiryFor(
  source: Source,
  key: string,
  writtenAt: Date,
  tiers: TierTable = DEFAULT_TIERS,
): string | null {
  const tier = effectiveTier(source, key, tiers);
  return tier.expiresAfterDays === null
    ? null
    : new Date(writtenAt.getTime() + tier.expiresAfterDays * DAY_MS).toISOString();
}

/**
 * Expiry after a move: moving into `/longterm` clears it; moving out keeps whatever it was (it does not come back).
 * Returns undefined when the expiry stays as it is.
 */
export function expiryAfterMove(newKey: string): null | undefined {
  return isLongtermKey(newKey) ? null : undefined;
}

export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now.getTime();
}

/** Age in days between an ISO time and now (negative when in the future). */
export function ageDays(createdAt: string, now: Date): number {
  return (now.getTime() - Date.parse(createdAt)) / DAY_MS;
}
