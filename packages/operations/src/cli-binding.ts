/**
 * The CLI binding of an operation: the `mem` command that runs it (its words, flags and positional arguments), how
 * the arguments become the operation input, and how the result prints. The `mem` command renders these, as the
 * server renders the HTTP and MCP bindings. Also the flag readers those mappings share with the CLI's own commands.
 */
import { type JsonValue, MemError } from '@mem/core';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/**
 * The flags a usage line names, read from it so that the two cannot disagree: `--name VALUE` (or `--name=VALUE`) is a
 * string flag, a `--name` followed by nothing, a bracket, a bar or another flag is a boolean one. A command declares
 * `flags` only for what a usage line cannot say (a repeated flag, a short alias, a flag it does not list).
 */
export function flagsOfUsage(usage: string): FlagSpec {
  const flags: FlagSpec = {};
  for (const m of usage.matchAll(/--([a-z][a-z0-9-]*)(?:[ =]([^\s[\]()|-][^\s[\]()]*))?/g)) {
    flags[m[1]!] = { type: m[2] === undefined ? 'boolean' : 'string' };
  }
  return flags;
}

/** What a command's line is parsed with: the flags its usage names, and those it declares over them. */
export function commandFlags(command: { usage: string; flags?: FlagSpec | undefined }): FlagSpec {
  return { ...flagsOfUsage(command.usage), ...command.flags };
}

/** A mistake on the command line (exit code 2, with the command's usage), not a refused request. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a CLI binding reads: the positional arguments, the parsed flags and standard input. */
export interface CliArgs {
  args: string[];
  flags: Record<string, unknown>;
  readStdin(): Promise<string>;
  /** A text file named on the command line (NOT_FOUND / INVALID_INPUT in words when it cannot be read). */
  readTextFile(file: string, what: string): string;
}

export interface CliBinding {
  /** The command words, e.g. `episodes add` (a group word and its sub-command). */
  command: string;
  /** One line in `mem --help`. */
  summary: string;
  /** `mem <command> --help`. */
  usage: string;
  /** The command's own flags (the global flags come from the CLI). */
  flags?: FlagSpec;
  /** Global flag names this command gives its own meaning (`mem forget --agent A`). */
  ownsFlags?: string[];
  /** The operation input from the command line (UsageError for a malformed one). */
  input(cli: CliArgs): unknown | Promise<unknown>;
  /** The result for a person (without `--json`); `input` is what `input()` built. */
  print(result: never, input: never): string;
  /** What `--json` prints (default: the result itself). */
  json?: (result: never) => unknown;
}

// ---------- flag readers ----------

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

/** The positional argument at `index`, or a UsageError naming what is missing. */
export function need(cli: Pick<CliArgs, 'args'>, index: number, what: string): string {
  const v = cli.args[index];
  if (v === undefined || v === '') throw new UsageError(`missing ${what}.`);
  return v;
}

/** The positional arguments joined as one text (a summary, a query), or a UsageError naming what is missing. */
export function text(cli: Pick<CliArgs, 'args'>, what: string): string {
  const joined = cli.args.join(' ');
  if (!joined.trim()) throw new UsageError(`missing ${what}.`);
  return joined;
}

/** A flag holding a list (`--tools a,b`, `--decisions "a;b"`), split on `sep`, blanks dropped. */
export function list(flags: Record<string, unknown>, name: string, sep: string): string[] | undefined {
  return str(flags, name)
    ?.split(sep)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** A JSON value for a person: strings as they are, everything else as JSON. */
export const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The positional arguments from `index` on as one text, or standard input for `-`; a UsageError when blank. */
export async function textArg(cli: CliArgs, index: number, what: string): Promise<string> {
  const rest = cli.args.slice(index).join(' ');
  if (rest === '-') return cli.readStdin();
  if (!rest.trim()) throw new UsageError(`missing ${what}.`);
  return rest;
}

/** A JSON argument (`--metadata`, `--input`, a state): must parse, with a clear error naming it. */
export function jsonArg(text: string | undefined, what: string): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new MemError('INVALID_INPUT', `${what} must be JSON (got ${JSON.stringify(text.slice(0, 60))}).`);
  }
}

/** A flag the command cannot do without (a UsageError saying what it is for otherwise). */
export function required<T>(value: T | undefined, message: string): T {
  if (value === undefined || value === '') throw new UsageError(message);
  return value;
}

/** `<id>` or `--key K [--scope S]`: which memory a command means. */
export function refFrom(
  cli: Pick<CliArgs, 'args' | 'flags'>,
): { id: string } | { key: string; scope?: 'agent' | 'swarm' } {
  const key = str(cli.flags, 'key');
  const id = cli.args[0];
  if (id !== undefined && key !== undefined) throw new UsageError('give either an id or --key, not both.');
  if (key !== undefined) {
    const scope = str(cli.flags, 'scope') as 'agent' | 'swarm' | undefined;
    return scope === undefined ? { key } : { key, scope };
  }
  if (id === undefined) throw new UsageError('missing the memory id (or --key K with --scope).');
  return { id };
}
