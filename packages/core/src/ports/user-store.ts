import type { UserRecord } from '../types-structured.js';

/**
 * External user ids mapped to internal ids (docs/structured.md). Every method is scoped by space.
 * `ensure` is atomic: two processes seeing a user for the first time at once agree on one internal id.
 */
export interface UserStore {
  readonly name: string;
  /**
   * The user with this external id; created with `candidate.id` and `candidate.at` on first sight.
   * `created` says whether this call created it.
   */
  ensure(
    space: string,
    externalId: string,
    candidate: { id: string; at: string },
  ): Promise<{ user: UserRecord; created: boolean }>;
  get(space: string, externalId: string): Promise<UserRecord | null>;
  getById(space: string, id: string): Promise<UserRecord | null>;
  delete(space: string, externalId: string): Promise<boolean>;
}
