import { MemError } from '../errors.js';

const MAX_NAME = 80;

/**
 * Check an agent, user or space name used as a folder or a key part: no `..`, `/`, `\`, NUL or control
 * characters, no leading dot, 1–80 characters. Throws `INVALID_INPUT`.
 */
export function checkName(value: string, what: 'agent' | 'space' | 'user' | 'topic' = 'agent'): string {
  const problem =
    typeof value !== 'string' || value.length === 0
      ? 'it is empty'
      : value.length > MAX_NAME
        ? `it is ${value.length} characters long (at most ${MAX_NAME})`
        : value.includes('..')
          ? 'it contains ".."'
          : /[/\\]/.test(value)
            ? 'it contains a slash or backslash'
            : /[\u0000-\u001f\u007f]/.test(value)
              ? 'it contains a NUL or control character'
              : value.startsWith('.')
                ? 'it starts with a dot'
                : value.trim() !== value
                  ? 'it has leading or trailing spaces'
                  : null;
  if (problem) {
    throw new MemError(
      'INVALID_INPUT',
      `Invalid ${what} name "${String(value).slice(0, 100)}": ${problem}. Use letters, digits, "-", "_" or "." (not first), at most ${MAX_NAME} characters, e.g. "researcher-1".`,
      { details: { what, rule: 'name' } },
    );
  }
  return value;
}
