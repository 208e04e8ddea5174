import path from 'node:path';
import type { NotebookScope } from '@mem/core';

/** Options shared by the Markdown stores. */
export interface MarkdownStoreOptions {
  /** The workspace folder (the CLI's `--workspace`, default `./.mem`). */
  root: string;
  /** The space kept directly under `<root>/agents/` (default `default`); other spaces live under `<root>/spaces/<space>/`. */
  defaultSpace?: string;
  /** fsync files and folders before a write resolves (default true). Turning it off trades durability for speed. */
  fsync?: boolean;
  /** How long a writer waits for a held lock before failing with a retryable STORE_UNAVAILABLE (default 10 000 ms). */
  lockTimeoutMs?: number;
  /** A lock older than this is broken even if its holder seems alive (default 30 000 ms). Dead holders are broken at once. */
  staleLockMs?: number;
}

export interface ResolvedOptions {
  root: string;
  defaultSpace: string;
  fsync: boolean;
  lock: { timeoutMs: number; staleMs: number };
}

export function resolveOptions(o: MarkdownStoreOptions): ResolvedOptions {
  if (typeof o?.root !== 'string' || o.root.length === 0) {
    throw new TypeError('store-markdown: give the workspace folder as `root`, e.g. { root: "./.mem" }.');
  }
  return {
    root: path.resolve(o.root),
    defaultSpace: o.defaultSpace ?? 'default',
    fsync: o.fsync ?? true,
    lock: { timeoutMs: o.lockTimeoutMs ?? 10_000, staleMs: o.staleLockMs ?? 30_000 },
  };
}

/**
 * Where things live (names are checked with `checkName` before they get here):
 *
 *   <root>/agents/<agent>/MEMORY.md                      transcript of an agent of the default space
 *   <root>/agents/<agent>/archive/history_<time>.md      its archives
 *   <root>/spaces/<space>/agents/<agent>/…               the same for any other space
 *   <root>/notebooks/<space>/<agent>/MEMORY.md, plans/…  an agent's notebook
 *   <root>/notebooks/<space>/<agent>/.user-<u>/.topic-<t>/…  narrowed notebooks (dot folders: never a notebook path)
 *
 * Lock files (`.lock`) and temporary files (`.<name>.tmp-…`) start with a dot and are never listed.
 */
export function agentsDir(o: ResolvedOptions, space: string): string {
  return space === o.defaultSpace ? path.join(o.root, 'agents') : path.join(o.root, 'spaces', space, 'agents');
}

export function agentDir(o: ResolvedOptions, space: string, agent: string): string {
  return path.join(agentsDir(o, space), agent);
}

export function notebookDir(o: ResolvedOptions, scope: NotebookScope): string {
  const parts = [o.root, 'notebooks', scope.space, scope.agent];
  if (scope.user !== undefined) parts.push(`.user-${scope.user}`);
  if (scope.topic !== undefined) parts.push(`.topic-${scope.topic}`);
  return path.join(...parts);
}
