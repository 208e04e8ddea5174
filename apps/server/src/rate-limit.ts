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
  /** Refill the caller's bucket by the time passed and take `cost` tokens when they are there, atomically. */
  take(caller: string, ratePerSecond: number, burst: number, cost?: number): Promise<RateDecision>;
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

  /** `take`, through the shared buckets when there are any (replicas on one PostgreSQL share one budget per key). */
  async takeShared(caller: string, cost = 1): Promise<RateDecision> {
    if (!this.enabled || !this.shared) return this.take(caller, cost);
    return this.shared.take(caller, this.options.ratePerSecond, this.options.burst, cost);
  }

  /** The bucket size: the largest cost one request can ever pay. */
  get burst(): number {
    return this.options.burst;
  }

  /**
   * Take `cost` tokens (the work a request asks for: 1 per request, more per batch element, import line or size).
   * Nothing is taken when the bucket holds fewer; the decision says when enough will be back.
   */
  take(caller: string, cost = 1): RateDecision {
    if (!this.enabled) return { ok: true, retryAfterSeconds: 0, remaining: Number.POSITIVE_INFINITY };
    const b = this.bucket(caller);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return { ok: true, retryAfterSeconds: 0, remaining: Math.floor(b.tokens) };
    }
    const rate = this.options.ratePerSecond;
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil((Math.min(cost, this.options.burst) - b.tokens) / rate)),
      remaining: Math.floor(b.tokens),
    };
  }

  /** Give tokens back (a reservation that turned out not to be needed, e.g. a key check that succeeded). */
  refund(caller: string, amount = 1): void {
    if (!this.enabled) return;
    const b = this.bucket(caller);
    b.tokens = Math.min(this.options.burst, b.tokens + amount);
  }

  private bucket(caller: string): { tokens: number; at: number } {
    const now = this.now();
    const { ratePerSecond: rate, burst } = this.options;
    this.sweep(now);
    const b = this.buckets.get(caller) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(caller, b);
    return b;
  }

  private sweep(now: number): void {
    const idle = this.options.idleMs ?? 10 * 60_000;
    if (now - this.lastSweep < idle) return;
    this.lastSweep = now;
    for (const [k, b] of this.buckets) if (now - b.at > idle) this.buckets.delete(k);
  }
}
