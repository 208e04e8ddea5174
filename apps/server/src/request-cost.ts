/**
 * What a request costs in rate tokens and how it pays: one token on arrival, then one per batch element or import
 * line or started COST_BYTES of body, from the caller's bucket (its key, or the open principal).
 */
import { HttpError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestState } from './request.js';
import { COST_BYTES } from './server-options.js';

/** The cost of a request: one token per batch element or import line, per started COST_BYTES, at least one. */
export function workCost(bytes: number, elements = 1): number {
  return Math.max(1, elements, Math.ceil(bytes / COST_BYTES));
}

function callerOf(state: RequestState): string {
  return state.keyId ? `key:${state.keyId}` : `open:${state.principal?.space}/${state.principal?.agentId}`;
}

/**
 * Take `cost` tokens from the caller's bucket, of which `paid` were taken already (the one every request pays
 * before its body is read): 429 when they are not there yet, 413 when they never can be.
 */
export async function chargeRequest(limiter: RateLimiter, state: RequestState, cost = 1, paid = 0): Promise<void> {
  if (cost - paid <= 0 || !limiter.enabled) return;
  if (cost > limiter.burst) {
    throw new HttpError(
      413,
      'TOO_LARGE',
      `This request costs ${cost} rate tokens (one per batch element, import line or started ${COST_BYTES / 1024} KiB), more than the ${limiter.burst} a key can spend at once: split it into smaller requests (or start the server with a larger --rate-burst).`,
    );
  }
  const d = await limiter.takeShared(callerOf(state), cost - paid);
  if (!d.ok) {
    throw new HttpError(429, 'RATE_LIMITED', `Too many requests for this key; retry in ${d.retryAfterSeconds} s.`, {
      'retry-after': String(d.retryAfterSeconds),
    });
  }
}
