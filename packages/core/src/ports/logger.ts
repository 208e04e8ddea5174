/** Where services report what they recovered from (a failed summariser, a lost compaction race). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Drops everything (tests, embedded use). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** Writes warnings and errors to stderr, one line each; info is dropped. Never writes to stdout. */
export const stderrLogger: Logger = {
  info: () => {},
  warn: (message, fields) => process.stderr.write(`mem warn: ${message}${fields ? ` ${safeJson(fields)}` : ''}\n`),
  error: (message, fields) => process.stderr.write(`mem error: ${message}${fields ? ` ${safeJson(fields)}` : ''}\n`),
};

function safeJson(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v));
  } catch {
    return '[unserialisable fields]';
  }
}
