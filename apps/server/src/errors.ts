import { MemError, type MemErrorCode } from '@mem/core';

/** Error codes the server adds to MemError's own (transport-level refusals). */
export type ServerErrorCode =
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'ROUTE_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'FORBIDDEN_HOST'
  | 'FORBIDDEN_ORIGIN'
  | 'SHUTTING_DOWN';

export type ErrorCode = MemErrorCode | ServerErrorCode;

/** The one error body of the HTTP API. Never a stack trace. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

/** A refusal decided by the transport (auth, limits, routing), with its status code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

const STATUS: Partial<Record<MemErrorCode, number>> = {
  INVALID_INPUT: 400,
  INVALID_KEY: 400,
  SECRET_DETECTED: 400,
  PERSONAL_DATA_DETECTED: 400,
  EMBEDDING_MISMATCH: 400,
  FORBIDDEN: 403,
  FORBIDDEN_KEY: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  KEY_TAKEN: 409,
  ALREADY_RATED: 409,
  TOO_LARGE: 413,
  CAPABILITY_MISSING: 501,
  STORE_UNAVAILABLE: 503,
  EMBEDDER_FAILED: 503,
  RERANKER_FAILED: 503,
  STORE_CORRUPT: 500,
  INTERNAL: 500,
};

/** HTTP status for a MemError code (500 for a code this table does not know). */
export function statusOf(code: MemErrorCode): number {
  return STATUS[code] ?? 500;
}

export interface ClassifiedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the error was not a deliberate refusal: its details go to the log only. */
  unexpected: boolean;
}

/**
 * Turn anything thrown into a status and a `{code, message}` body. A MemError or HttpError keeps its code and
 * message; anything else becomes 500 INTERNAL naming only the request id (the details belong in the log).
 */
export function classify(error: unknown, requestId: string): ClassifiedError {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { code: error.code, message: error.message },
      headers: error.headers,
      unexpected: false,
    };
  }
  if (MemError.is(error) && error.code !== 'INTERNAL') {
    const status = statusOf(error.code);
    return { status, body: { code: error.code, message: error.message }, headers: {}, unexpected: status === 500 };
  }
  return {
    status: 500,
    body: { code: 'INTERNAL', message: `internal error, request id ${requestId}` },
    headers: {},
    unexpected: true,
  };
}
