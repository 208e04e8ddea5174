import { readFileSync } from 'node:fs';
import { MemError, type Principal, type Stack } from '@mem/core';
import { type GlobalOptions, UsageError } from './context.js';
import type { Io } from './io.js';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface Command {
  summary: string;
  usage: string;
  flags: FlagSpec;
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

// ---------- flag helpers ----------

export function str(flags: Record<string, unknown>, name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function int(flags: Record<string, unknown>, name: string): number | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number (got "${v}").`);
  return Number(v);
}

export function num(flags: Record<string, unknown>, name: string): number | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${name} must be a number (got "${v}").`);
  return n;
}

export function bool(flags: Record<string, unknown>, name: string, required = false): boolean | undefined {
  const v = str(flags, name);
  if (v === undefined) {
    if (required) throw new UsageError(`--${name} true|false is required.`);
    return undefined;
  }
  if (v === 'true' || v === 'yes' || v === '1') return true;
  if (v === 'false' || v === 'no' || v === '0') return false;
  throw new UsageError(`--${name} must be true or false (got "${v}").`);
}

export function tags(flags: Record<string, unknown>): string[] | undefined {
  const v = str(flags, 'tags');
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t.length > 0);
}

export function need(ctx: Ctx, index: number, what: string): string {
  const v = ctx.args[index];
  if (v === undefined || v === '') throw new UsageError(`missing ${what}.`);
  return v;
}

export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `<id>` or `--key K [--scope S]` */
export function refFrom(ctx: Ctx): { id: string } | { key: string; scope?: 'agent' | 'swarm' } {
  const key = str(ctx.flags, 'key');
  const id = ctx.args[0];
  if (id !== undefined && key !== undefined) throw new UsageError('give either an id or --key, not both.');
  if (key !== undefined)
    return defined({ key, scope: str(ctx.flags, 'scope') as 'agent' | 'swarm' | undefined }) as { key: string };
  if (id === undefined) throw new UsageError('missing the memory id (or --key K with --scope).');
  return { id };
}

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
