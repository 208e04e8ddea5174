import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the system's temp folder, named `mem-<name>-…`; `remove()` deletes it with everything in it. */
export function tempDir(name: string): { path: string; join: (...parts: string[]) => string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `mem-${name}-`));
  return {
    path,
    join: (...parts) => join(path, ...parts),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/**
 * A port fixture on a fresh temp folder, the shape every suite's factory returns: `open(dir, options)` makes an
 * instance on the folder (the store, then one per `openAnother`, as another process would), and `cleanup` closes
 * every instance opened, then removes the folder. Closing twice must be harmless (a suite may close what it opened).
 */
export function tempFixture<S extends { close(): Promise<void> }, O = undefined>(
  name: string,
  open: (dir: string, options?: O) => S,
  options?: O,
): { store: S; dir: string; openAnother: (options?: O) => Promise<S>; cleanup: () => Promise<void> } {
  const dir = tempDir(name);
  const opened: S[] = [];
  const connect = (o?: O): S => {
    const store = open(dir.path, o);
    opened.push(store);
    return store;
  };
  return {
    store: connect(options),
    dir: dir.path,
    openAnother: async (o) => connect(o),
    cleanup: async () => {
      for (const store of opened.splice(0)) await store.close();
      dir.remove();
    },
  };
}

/**
 * Every file below `dir`, read as Latin-1 text and joined: the raw scan the forget suite searches for a marker. A file
 * that goes while the folder is read (a running server's temporary or removed WAL files) is left out.
 */
export function readTreeText(dir: string): string {
  const texts: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      texts.push(readFileSync(join(entry.parentPath, entry.name)).toString('latin1'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return texts.join('\n');
}
