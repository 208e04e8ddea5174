import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');
const tsx = createRequire(import.meta.url).resolve('tsx');
const dir = mkdtempSync(join(tmpdir(), 'mem-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the example app as a user would (a new process each time) and read its JSON lines. */
async function runExample(folder: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await exec(process.execPath, ['--conditions=dev-source', '--import', tsx, MAIN, folder, ...args]);
  const out: Record<string, unknown> = {};
  for (const line of stdout.trim().split('\n')) {
    const { what, value } = JSON.parse(line) as { what: string; value: unknown };
    out[what] = value;
  }
  return out;
}

describe('the compose-your-own-stack example', () => {
  it('remembers across runs: knowledge, facts, transcript, notebook and episodes persist in its folder', async () => {
    const first = await runExample(dir, '--embedder', 'hashing');
    expect(first.run).toBe(1);
    expect(first.search).toEqual(['Run 1: Ada prefers short answers with a code sample first.']);
    expect(first.transcript).toBe(1);
    expect(first.episodes).toBe(1);

    const second = await runExample(dir, '--embedder', 'hashing');
    expect(second.run).toBe(2);
    expect(second.search).toEqual(
      expect.arrayContaining([
        'Run 1: Ada prefers short answers with a code sample first.',
        'Run 2: Ada prefers short answers with a code sample first.',
      ]),
    );
    expect(second.transcript).toBe(2);
    expect(second.notebook).toEqual(expect.arrayContaining(['- run 1 finished', '- run 2 finished']));
    expect(second.episodes).toBe(2);
    expect(existsSync(join(dir, 'mem.db'))).toBe(true);
    expect(existsSync(join(dir, 'spaces', 'example', 'agents', 'assistant', 'MEMORY.md'))).toBe(true);
  });

  it('runs on the offline local embedder too, and a folder embedded by another model is refused, not mixed', async () => {
    const local = await runExample(join(dir, 'local'), '--embedder', 'local');
    expect(local.run).toBe(1);
    expect(local.search).toEqual(['Run 1: Ada prefers short answers with a code sample first.']);
    const mixed = await runExample(dir, '--embedder', 'local').then(
      () => null,
      (e: { stderr: string }) => e,
    );
    expect(mixed?.stderr).toContain('EMBEDDING_MISMATCH');
  });

  it('refuses a bad flag with a clear message and exit code 2', async () => {
    const failed = await exec(process.execPath, [
      '--conditions=dev-source',
      '--import',
      tsx,
      MAIN,
      dir,
      '--embedder',
      'gpu',
    ]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('--embedder must be local or hashing');
  });
});
