/** README.md works as written: every `ts` block runs in its own process, in an empty folder, and its output is checked. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = [...readFileSync(join(pkg, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
// The blocks live inside the package (so that `@mem/langchain` and its dependencies resolve); each runs in a new folder.
const scratch = join(pkg, 'test-artifacts');
// tsx by its file URL: `--import` resolves a bare name from the working folder, an empty one here.
const tsx = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs'),
).href;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

function run(code: string, name: string): Promise<string> {
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, `${name}.mts`);
  writeFileSync(file, code);
  const cwd = mkdtempSync(join(tmpdir(), 'mem-lc-readme-'));
  dirs.push(cwd);
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--conditions=dev-source', '--import', tsx, file],
      { cwd, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

describe('README.md', () => {
  it('has the four examples', () => {
    expect(blocks).toHaveLength(4);
  });

  it('a chat with memory: the second conversation recalls what the first said', async () => {
    const out = await run(blocks[0]!, 'chat');
    expect(out).toContain('An aisle seat, as you prefer.');
    expect(out).toContain("[ 'User prefers aisle seats on long flights.' ]");
  });

  it('the retriever: a filtered search and a recall', async () => {
    const out = await run(blocks[1]!, 'retriever');
    expect(out).toContain('The staging database is reset every Sunday at 02:00 UTC. /projects/billing/staging-reset');
    expect(out).toMatch(/\[ (0\.\d+|1) \]/);
  });

  it('the chat history: tool calls round-trip', async () => {
    expect(await run(blocks[2]!, 'history')).toContain("[ 'human', 'ai', 'tool', 'ai' ]");
  });

  it('the key-value store: bytes, a missing key, keys by prefix', async () => {
    const out = await run(blocks[3]!, 'kv');
    expect(out).toContain('[0.12,-0.5] undefined');
    expect(out).toContain('text-embedding-3-small:4f2a');
  });
});
