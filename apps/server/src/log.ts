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
