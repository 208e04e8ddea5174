import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@mem/core/adapter';

export const isCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;

/** A name no other writer will pick: pid plus random bytes. */
export function uniqueSuffix(): string {
  return `${process.pid}.${randomBytes(6).toString('hex')}`;
}

/** fsync a directory so that entries created, renamed or removed in it survive a power loss. */
export async function fsyncDir(dir: string, enabled = true): Promise<void> {
  if (!enabled) return;
  let fh: fs.FileHandle | undefined;
  try {
    fh = await fs.open(dir, constants.O_RDONLY);
    await fh.sync();
  } catch (error) {
    // Some platforms refuse to open or sync directories; the data itself is already synced.
    if (!isCode(error, 'EISDIR') && !isCode(error, 'EPERM') && !isCode(error, 'EINVAL') && !isCode(error, 'EACCES'))
      throw error;
  } finally {
    await fh?.close();
  }
}

/** mkdir -p, then fsync the parent of every directory it created, so the new entries are durable. */
export async function ensureDir(dir: string, durable = true): Promise<void> {
  const first = await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined || !durable) return;
  // `first` is the topmost directory created; sync it and every parent down to `dir`.
  let d = path.resolve(dir);
  const top = path.resolve(first);
  const toSync: string[] = [];
  while (true) {
    toSync.push(path.dirname(d));
    if (d === top || d === path.dirname(d)) break;
    d = path.dirname(d);
  }
  for (const p of toSync) await fsyncDir(p);
}

/** Write a whole buffer at the handle's position (loops over short writes). */
export async function writeAll(fh: fs.FileHandle, data: Buffer, position: number | null = null): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await fh.write(
      data,
      offset,
      data.length - offset,
      position === null ? null : position + offset,
    );
    if (bytesWritten <= 0) throw new Error('short write: 0 bytes written');
    offset += bytesWritten;
  }
}

/** Write `data` to a new temporary file beside `target` (fsynced); returns its path. */
export async function writeTemp(
  target: string,
  data: Buffer | string,
  options: { fsync: boolean; mtime?: Date },
): Promise<string> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${uniqueSuffix()}`);
  const fh = await fs.open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    await writeAll(fh, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, 0);
    if (options.mtime) await fh.utimes(options.mtime, options.mtime);
    if (options.fsync) await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** Atomically put a temporary file in place of `target` (rename), then fsync the folder. */
export async function commitReplace(tmp: string, target: string, fsync: boolean): Promise<void> {
  await fs.rename(tmp, target);
  await fsyncDir(path.dirname(target), fsync);
}

/** Atomically put a temporary file at `target` only if nothing is there (link: `EEXIST` otherwise), then fsync the folder. */
export async function commitExclusive(tmp: string, target: string, fsync: boolean): Promise<void> {
  await fs.link(tmp, target);
  await fs.unlink(tmp);
  await fsyncDir(path.dirname(target), fsync);
}

/** Write a file durably and atomically: temporary file, fsync, rename over the target, fsync the folder. */
export async function replaceFile(
  target: string,
  data: Buffer | string,
  options: { fsync: boolean; mtime?: Date },
): Promise<void> {
  const tmp = await writeTemp(target, data, options);
  try {
    await commitReplace(tmp, target, options.fsync);
  } catch (error) {
    await fs.unlink(tmp).catch(() => {});
    throw error;
  }
}

/** Remove leftovers of crashed writers in a folder: `.<name>.tmp-<pid>.<hex>` files. */
export async function removeTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  await Promise.all(
    names
      .filter((n) => n.startsWith('.') && n.includes('.tmp-'))
      .map((n) => fs.unlink(path.join(dir, n)).catch(() => {})),
  );
}

/**
 * Remove what crashed removals of `name` left in `parent`: the `.<name>.removed-<pid>-<time>` folders a removal moves a
 * folder to before deleting it (forget: a crash between the two would leave the forgotten files there).
 */
export async function removeGraves(parent: string, name: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(parent);
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return;
    throw error;
  }
  const prefix = `.${name}.removed-`;
  for (const n of names) if (n.startsWith(prefix)) await fs.rm(path.join(parent, n), { recursive: true, force: true });
}

export async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'EISDIR') || isCode(error, 'ENOTDIR')) return null;
    throw error;
  }
}
