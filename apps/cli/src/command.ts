import { readFileSync } from 'node:fs';
import { MemError, type Principal, type Stack } from '@mem/core';
import type { FlagSpec } from '@mem/operations';
import type { GlobalOptions } from './context.js';

export type { FlagSpec };

import type { Io } from './io.js';

export interface Command {
  summary: string;
  usage: string;
  /** Flags beyond those its usage line names (see `commandFlags` of @mem/operations). */
  flags?: FlagSpec;
  /** Hand every argument to the command untouched (no flag parsing). */
  passthrough?: boolean;
  /** Global flag names this command gives its own meaning (`mem convo add --role user`). */
  ownsFlags?: string[];
  /** Resolves to an exit code other than 0 when the command partly failed. */
  run(ctx: Ctx): Promise<unknown>;
}

export interface Ctx {
  args: string[];
  flags: Record<string, unknown>;
  g: GlobalOptions;
  p: Principal;
  io: Io;
  stack: () => Promise<Stack>;
  out(json: unknown, human: () => string): void;
}

// The flag readers are the table's (@mem/operations), so a command written here and a CLI binding read flags alike.
export { bool, defined, int, need, num, str, tags } from '@mem/operations';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What went wrong with a file, in words (not a raw `ENOENT: …, open '…'`). */
export function fileProblem(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return 'there is no such file or folder';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is not a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return e instanceof Error ? e.message : String(e);
}

/** A text file named on the command line: a clear NOT_FOUND / INVALID_INPUT instead of a raw file-system error. */
export function readTextFile(file: string, what: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new MemError('NOT_FOUND', `Cannot read ${what} ${file}: ${fileProblem(e)}.`);
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new MemError('INVALID_INPUT', `${what} ${file} is not valid UTF-8 text: save it as UTF-8.`);
  }
}
