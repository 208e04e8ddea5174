/**
 * Structured logs: one JSON object per line. Request lines carry method, path, status, ms, principal and request
 * id — never memory content, memory keys from bodies, or API keys.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

export interface ServerLogger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** JSON Lines to a writable (stderr by default: stdout may carry MCP's protocol). */
export function jsonLogger(
  options: { write?: (line: string) => void; level?: LogLevel; now?: () => Date } = {},
): ServerLogger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const min = ORDER[options.level ?? 'info'];
  const now = options.now ?? (() => new Date());
  return {
    log(level, msg, fields = {}) {
      if (ORDER[level] < min) return;
      write(`${JSON.stringify({ t: now().toISOString(), level, msg, ...fields })}\n`);
    },
  };
}

/** Drops everything (tests that do not look at logs). */
export const silentLogger: ServerLogger = { log() {} };

/** Keeps lines in memory (tests that do look at logs). */
export function memoryLogger(): ServerLogger & { lines: (LogFields & { level: LogLevel; msg: string })[] } {
  const lines: (LogFields & { level: LogLevel; msg: string })[] = [];
  return {
    lines,
    log(level, msg, fields = {}) {
      lines.push({ level, msg, ...fields });
    },
  };
}

/**
 * The path a request line records: never text a caller chose (an id, a file name, a tag or a key in the URL could be
 * memory content). A request an operation served logs its route template (`/v1/memories/{id}`); a fixed service path
 * (`/healthz`, `/openapi.json`, an inspector asset, `/mcp`) logs itself; anything else logs `(unmatched)`.
 */
export function loggedPath(pathname: string, route: string | null, isServicePath: (p: string) => boolean): string {
  if (route !== null) return route;
  return isServicePath(pathname) ? pathname : '(unmatched)';
}

/** The MCP tool a request line records: a tool the server has, else `(unknown)` (the name is caller text). */
export function loggedTool(name: string, known: ReadonlySet<string>): string {
  return known.has(name) ? name : '(unknown)';
}
