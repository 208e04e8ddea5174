import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Run `fn` with the process umask set to `mask` (0 by default: the loosest, so a mode that holds here holds under
 * any umask), then restore it. Tests run in forked processes (the `forks` pool), where `process.umask` may be set.
 */
export async function withUmask<T>(fn: () => Promise<T>, mask = 0): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

/** Permission bits of a path, as an octal string (`'600'`). */
export async function modeOf(file: string): Promise<string> {
  return ((await lstat(file)).mode & 0o777).toString(8);
}

/**
 * Every file under `root` (and `root` itself) whose mode lets anyone but the owner in: files must be 0600 and
 * folders 0700. Returns `<relative path> <mode>` lines, empty when all is private.
 */
export async function notPrivate(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (p: string): Promise<void> => {
    const st = await lstat(p);
    const mode = st.mode & 0o777;
    const rel = path.relative(root, p) || '.';
    if (st.isDirectory()) {
      if (mode !== 0o700) out.push(`${rel}/ ${mode.toString(8)}`);
      for (const name of await readdir(p)) await visit(path.join(p, name));
    } else if (st.isFile() && mode !== 0o600) out.push(`${rel} ${mode.toString(8)}`);
  };
  await visit(root);
  return out.sort();
}
