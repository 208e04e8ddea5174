import type { Erasable } from './eraser.js';

/**
 * Whose notebook: an agent of a space, optionally narrowed to one user and/or one topic (docs/notebooks.md).
 * Every name is checked with `checkName`.
 */
export interface NotebookScope {
  space: string;
  agent: string;
  user?: string | undefined;
  topic?: string | undefined;
}

/** A notebook file as listed. `path` is normalised (see `checkNotebookPath`), e.g. `plans/q3-roadmap.md`. */
export interface NotebookEntry {
  path: string;
  /** Size in bytes (UTF-8). */
  size: number;
  updatedAt: string;
}

export interface NotebookFile extends NotebookEntry {
  content: string;
  /** The compare-and-set version: `notebookVersion(content)`, a content hash. */
  version: string;
}

export interface NotebookStoreCapabilities {
  durable: boolean;
  /** Several processes may write one notebook at once; compare-and-set holds across them. */
  crossProcess: boolean;
}

/**
 * Storage of agent notebooks: small Markdown files addressed by a normalised path. Writes are
 * compare-and-set on the file's version so that two writers never lose each other's change.
 * Paths are checked with `checkNotebookPath` (`INVALID_INPUT`); names with `checkName`.
 * Limits, edit rules and secret checks belong to the Notebook service, not to the store.
 */
export interface NotebookStore extends Erasable {
  readonly name: string;
  readonly capabilities: NotebookStoreCapabilities;

  read(scope: NotebookScope, path: string): Promise<NotebookFile | null>;
  /**
   * Replace a file's content if its current version is `expectedVersion` (`null`: the file must not exist).
   * `CONFLICT` otherwise. `at` becomes `updatedAt`. Returns the new entry and version.
   */
  write(
    scope: NotebookScope,
    path: string,
    content: string,
    options: { expectedVersion: string | null; at: string },
  ): Promise<NotebookEntry & { version: string }>;
  /** Delete a file (if `expectedVersion` is given it must match: `CONFLICT`). False when it did not exist. */
  delete(scope: NotebookScope, path: string, options?: { expectedVersion?: string }): Promise<boolean>;
  /** Files sorted by path; `prefix` is a literal, case-sensitive path prefix. */
  list(scope: NotebookScope, options?: { prefix?: string }): Promise<NotebookEntry[]>;
  /**
   * Delete a notebook (`forget`); returns the number of files removed. Without `user`/`topic` this removes
   * every notebook of the agent, including its per-user and per-topic ones.
   */
  remove(scope: NotebookScope): Promise<number>;
  close(): Promise<void>;
}
