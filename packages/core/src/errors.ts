/** Stable error codes. A code never changes meaning once published. */
export type MemErrorCode =
  | 'INVALID_KEY'
  | 'FORBIDDEN_KEY'
  | 'KEY_TAKEN'
  | 'SECRET_DETECTED'
  | 'PERSONAL_DATA_DETECTED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'ALREADY_RATED'
  | 'INVALID_INPUT'
  | 'FORBIDDEN'
  | 'TOO_LARGE'
  | 'EMBEDDING_MISMATCH'
  | 'CAPABILITY_MISSING'
  | 'STORE_UNAVAILABLE'
  | 'STORE_CORRUPT'
  | 'EMBEDDER_FAILED'
  | 'RERANKER_FAILED'
  | 'INTERNAL';

const MARKER = Symbol.for('mem.error');

export interface MemErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  /** Extra machine-readable facts (never secret values). */
  details?: Record<string, unknown>;
}

/**
 * The one error type of mem. `code` is stable; `message` says what was wrong and how to fix it.
 * `MemError.is(e)` works across duplicated package copies through a `Symbol.for` marker.
 */
export class MemError extends Error {
  readonly code: MemErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  readonly [MARKER] = true;

  constructor(code: MemErrorCode, message: string, options: MemErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }

  static is(value: unknown, code?: MemErrorCode): value is MemError {
    const ok = typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
    return ok && (code === undefined || (value as MemError).code === code);
  }

  toJSON(): { code: MemErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** Wrap an unknown driver error as a MemError whose message starts with the adapter name. */
export function wrapStoreError(adapter: string, error: unknown, what: string): MemError {
  if (MemError.is(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new MemError('STORE_UNAVAILABLE', `${adapter}: ${what} failed: ${detail}`, { cause: error, retryable: true });
}
