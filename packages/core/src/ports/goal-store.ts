import type { Goal, NewGoal } from '../types-structured.js';

/**
 * Goals of users (docs/structured.md): at most one active goal per (space, user, topic), `topic` null for a global goal.
 * Every method is scoped by space; `setActive` is atomic (two writers never leave two active goals).
 */
export interface GoalStore {
  readonly name: string;
  /** Make `goal` the active goal of its (user, topic); a previous active goal becomes `replaced`. */
  setActive(space: string, goal: NewGoal): Promise<{ goal: Goal; replaced: Goal | null }>;
  getActive(space: string, user: string, topic: string | null): Promise<Goal | null>;
  /** End the active goal of (user, topic) as completed or abandoned; null when none is active. */
  finish(
    space: string,
    user: string,
    topic: string | null,
    status: 'completed' | 'abandoned',
    at: string,
  ): Promise<Goal | null>;
  /**
   * Goals of a user, newest first. `topic` undefined lists every topic; null only global goals.
   * Ties in `createdAt` keep the reverse insertion order.
   */
  list(space: string, user: string, options?: { topic?: string | null; limit?: number }): Promise<Goal[]>;
  /** Delete every goal of a user. Returns how many went. */
  deleteUser(space: string, user: string): Promise<number>;
}
