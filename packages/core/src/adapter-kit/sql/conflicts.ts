/** The CONFLICT errors the shared SQL stores raise, for engines that write their own form of a statement. */
import { MemError } from '../../errors.js';
import type { SqlDialect } from './dialect.js';

export const sqlConflicts = {
  /** A record id already stored in the space. */
  duplicateId(d: SqlDialect, what: string, id: string, cause: unknown): MemError {
    return new MemError('CONFLICT', `${d.adapter}: ${what} id "${id}" already exists in this space. Use a new id.`, {
      cause,
      details: { id },
    });
  },
  /** A summary saved with an `expectedVersion` that is no longer the stored one. */
  summaryChanged(
    d: SqlDialect,
    sessionId: string,
    storedVersion: number,
    expectedVersion: number | undefined,
  ): MemError {
    return new MemError(
      'CONFLICT',
      `${d.adapter}: the summary of session "${sessionId}" changed meanwhile (version ${storedVersion}, expected ${expectedVersion}). Read it again and retry.`,
      { retryable: true, details: { sessionId, storedVersion, expectedVersion } },
    );
  },
  /** A user id that belongs to another external id. */
  userTaken(d: SqlDialect, id: string, cause: unknown): MemError {
    return new MemError(
      'CONFLICT',
      `${d.adapter}: user id "${id}" already belongs to another external id in this space. Use a new id.`,
      { cause, details: { id } },
    );
  },
  /** A user deleted by another writer between an `ensure`'s insert and its read (engines without a write lock). */
  userDeleted(d: SqlDialect, externalId: string): MemError {
    return new MemError('CONFLICT', `${d.adapter}: user "${externalId}" was deleted while being ensured; retry.`, {
      retryable: true,
    });
  },
};
