/** Test helpers: one SQLite file per world, a stack per `boot()` (a restart), and a second real process over it. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';

export const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The stack every process of the tests builds over `db` (the child builds the same one). */
export function stackOn(db: string): Stack {
  return createStack({ stores: createSqliteStores({ path: db }), embedder: createHashingEmbedder(), logger: quiet });
}

const open: Stack[] = [];
const dirs: string[] = [];

/** Close what the tests opened and remove their folders (call from afterEach / afterAll). */
export async function cleanup(): Promise<void> {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function world(name = 'lc') {
  const dir = mkdtempSync(join(tmpdir(), `mem-${name}-`));
  dirs.push(dir);
  const db = join(dir, 'mem.db');
  return {
    db,
    boot(): Stack {
      const stack = stackOn(db);
      open.push(stack);
      return stack;
    },
  };
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Run test/child.ts in a new Node process (through tsx, reading the workspace's sources) over the same SQLite file,
 * and return the JSON it prints on its last stdout line.
 */
export function inChild<T>(task: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=dev-source', '--import', 'tsx', join(here, 'child.ts')],
      { cwd: join(here, '..'), env: { ...process.env, MEM_LC_CHILD: JSON.stringify(task) }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`child failed: ${error.message}\n${stderr}`));
        const last = stdout.trim().split('\n').at(-1) ?? '';
        try {
          resolve(JSON.parse(last) as T);
        } catch {
          reject(new Error(`child printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
  });
}
