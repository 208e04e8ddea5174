/** A token bucket per caller (an API key, or the default principal when the server runs without keys). */
export interface RateLimitOptions {
  /** Tokens added per second (sustained requests/s). 0 turns limiting off. */
  ratePerSecond: number;
  /** Bucket size: how many requests may come at once after a quiet period. */
  burst: number;
  /** Forget idle buckets after this long (ms). */
  idleMs?: number;
  now?: () => number;
}

export interface RateDecision {
  ok: boolean;
  /** Seconds until one token is back (when refused). */
  retryAfterSeconds: number;
  remaining: number;
}

/**
 * Buckets kept outside the process (PostgreSQL, keys-postgres.ts), so that replicas of the server share one budget
 * per key: a key cannot get N times its rate by spreading requests over N replicas.
 */
export interface RateBuckets {
  /** Refill the caller's bucket by the time passed and take one token when there is one, atomically. */
  take(caller: string, ratePerSecond: number, burst: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly now: () => number;
  private lastSweep = 0;

  /** Local buckets, or `shared` ones that every replica of the server uses. */
  constructor(
    private readonly options: RateLimitOptions,
    private readonly shared: RateBuckets | null = null,
  ) {
    this.now = options.now ?? (() => Date.now());
  }

  get enabled(): boolean {
    return this.options.ratePerSecond > 0;
  }

  /** `take`, through the shared buckets when there are any. */
  async takeShared(caller: string): Promise<RateDecision> {
    if (!this.enabled || !this.shared) return this.take(caller);
    return this.shared.take(caller, this.options.ratePerSecond, this.options.burst);
  }

  take(caller: string): RateDecision {
    if (!this.enabled) return { ok: true, retryAfterSeconds: 0, remaining: Number.POSITIVE_INFINITY };
    const now = this.now();
    const { ratePerSecond: rate, burst } = this.options;
    this.sweep(now);
    const b = this.buckets.get(caller) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(caller, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true, retryAfterSeconds: 0, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate)), remaining: 0 };
  }

  private sweep(now: number): void {
    const idle = this.options.idleMs ?? 10 * 60_000;
    if (now - this.lastSweep < idle) return;
    this.lastSweep = now;
    for (const [k, b] of this.buckets) if (now - b.at > idle) this.buckets.delete(k);
  }
}
