/**
 * Every public package installs alone, as a user gets it from the registry: packed by `pnpm pack` (versions, not
 * `workspace:` ranges), installed with npm into a project outside the workspace, then used with plain `node`,
 * type-checked with `skipLibCheck: false`, and the packed `mem` command run. CI runs this file on Node 22 and on 24.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addToProject,
  buildAndPack,
  childEnv,
  listTarball,
  makeProject,
  manifestOf,
  publicPackages,
  readFromTarball,
  readmeExample,
  ROOT as root,
  rootPin,
  run,
  tsc,
  workspacePackage,
  writeTsconfig,
} from '../src/pack.js';

const work = mkdtempSync(join(tmpdir(), 'mem-release-'));
let tarballs = new Map<string, string>();
const tarball = (name: string): string => {
  const t = tarballs.get(name);
  if (!t) throw new Error(`no tarball for ${name}: is it still a public package?`);
  return t;
};
const projects: string[] = [];
const project = (label: string, names: string[], registry: Record<string, string> = {}): string => {
  const dir = makeProject(label, names.map(tarball), registry);
  projects.push(dir);
  return dir;
};
const node = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, args, { cwd, env: childEnv(env) });

beforeAll(() => {
  tarballs = buildAndPack(join(work, 'tarballs'));
});

afterAll(() => {
  for (const dir of [...projects, work]) rmSync(dir, { recursive: true, force: true });
});

describe('the packed tarballs', () => {
  it('cover every public package, with versions instead of workspace ranges, built files, a README that says ESM only, and Node >= 22', () => {
    const names = publicPackages().map((p) => p.manifest.name);
    expect(names).toEqual(expect.arrayContaining(['@mem/core', '@mem/cli', '@mem/server', '@mem/store-sqlite']));
    for (const name of names) {
      const t = tarball(name);
      const raw = readFromTarball(t, 'package.json');
      expect(raw, `${name}: a workspace: range left in the packed manifest`).not.toContain('workspace:');
      const m = manifestOf(t);
      expect(m.type, name).toBe('module');
      expect(m.engines?.node, name).toBe('>=22');
      const files = listTarball(t);
      expect(files, name).toContain('README.md');
      const entry = m.bin ? Object.values(m.bin)[0]!.replace(/^\.\//, '') : 'dist/index.js';
      expect(files, `${name}: ${entry} missing from the tarball`).toContain(entry);
      if (!m.bin) expect(files, name).toContain('dist/index.d.ts');
      expect(
        files.some((f) => f.startsWith('src/')),
        `${name} ships its TypeScript sources`,
      ).toBe(false);
      expect(readFromTarball(t, 'README.md'), `${name}: README must state ESM only`).toMatch(/ESM only/i);
    }
  });

  it('declare the type packages a consumer needs as dependencies (better-sqlite3 types for @mem/store-sqlite)', () => {
    const m = manifestOf(tarball('@mem/store-sqlite'));
    expect(Object.keys(m.dependencies ?? {})).toContain('@types/better-sqlite3');
  });

  it('the server ships the inspector files and the CLI depends on no TypeScript loader', () => {
    expect(listTarball(tarball('@mem/server'))).toEqual(expect.arrayContaining(['public/index.html', 'public/app.js']));
    const cli = manifestOf(tarball('@mem/cli'));
    expect(Object.keys(cli.dependencies ?? {})).not.toContain('tsx');
    expect(readFromTarball(tarball('@mem/cli'), 'dist/bin.js').startsWith('#!/usr/bin/env node')).toBe(true);
  });
});

describe('each adapter installs with @mem/core alone', () => {
  const adapters = () =>
    publicPackages()
      .map((p) => p.manifest)
      .filter((m) => m.name !== '@mem/core' && m.peerDependencies?.['@mem/core']);

  it('every adapter package imports on plain node next to @mem/core and nothing else of mem (the framework adapters also with @mem/operations, whose table they render)', () => {
    const list = adapters();
    expect(list.length).toBeGreaterThanOrEqual(8);
    const framework = list.filter((m) => m.dependencies?.['@mem/operations']).map((m) => m.name);
    expect(framework).toEqual(expect.arrayContaining(['@mem/ai-sdk', '@mem/openai-agents', '@mem/langgraph']));
    for (const m of list) {
      const name = m.name;
      if (name === '@mem/store-sqlite' || name === '@mem/store-lancedb' || name === '@mem/store-postgres') continue; // below
      const mem = Object.keys({ ...m.dependencies }).filter((d) => d.startsWith('@mem/'));
      expect(
        mem.filter((d) => d !== '@mem/operations'),
        `${name} depends on another mem package`,
      ).toEqual([]);
      const dir = project(name.replace('@mem/', ''), ['@mem/core', ...mem, name]);
      const out = node(dir, [
        '--input-type=module',
        '-e',
        `const m = await import('${name}'); console.log(Object.keys(m).length);`,
      ]);
      expect(Number(out.trim()), name).toBeGreaterThan(0);
      expect(existsSync(join(dir, 'node_modules', 'better-sqlite3')), `${name} pulled in better-sqlite3`).toBe(false);
    }
  });

  it('@mem/store-postgres without better-sqlite3 present: imports, and stores and searches when a server is given', () => {
    const dir = project('store-postgres', ['@mem/core', '@mem/store-postgres']);
    expect(existsSync(join(dir, 'node_modules', 'better-sqlite3'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', '@mem', 'store-sqlite'))).toBe(false);
    const url = process.env.MEM_TEST_POSTGRES_URL;
    const script = url
      ? `import { createHashingEmbedder, createStack } from '@mem/core';
         import { createPostgresStores } from '@mem/store-postgres';
         const stores = await createPostgresStores({ url: process.env.PG_URL });
         const { knowledge, close } = createStack({ knowledge: stores.knowledge, embedder: createHashingEmbedder(), structured: stores.structured });
         const me = { space: 'install-alone-' + Date.now(), agentId: 'a', role: 'worker' };
         await knowledge.store(me, { content: 'The release train leaves on Thursdays.' });
         const [hit] = await knowledge.search(me, { query: 'when does the release train leave' });
         console.log(hit.content);
         await close(); await stores.close();`
      : `const m = await import('@mem/store-postgres'); console.log(typeof m.createPostgresStores === 'function' ? 'The release train leaves on Thursdays.' : 'missing');`;
    writeFileSync(join(dir, 'check.mjs'), script);
    expect(node(dir, ['check.mjs'], url ? { PG_URL: url } : {})).toContain('The release train leaves on Thursdays.');
  });

  it('@mem/store-lancedb stores and searches in a folder', () => {
    const dir = project('store-lancedb', ['@mem/core', '@mem/store-lancedb']);
    expect(existsSync(join(dir, 'node_modules', 'better-sqlite3'))).toBe(false);
    writeFileSync(
      join(dir, 'check.mjs'),
      `import { createHashingEmbedder, createStack } from '@mem/core';
       import { createLanceStores } from '@mem/store-lancedb';
       const stores = createLanceStores({ uri: './lance' });
       const { knowledge, close } = createStack({ knowledge: stores.knowledge, embedder: createHashingEmbedder() });
       const me = { space: 'acme', agentId: 'a', role: 'worker' };
       await knowledge.store(me, { content: 'Invoices are archived after seven years.' });
       const [hit] = await knowledge.search(me, { query: 'how long are invoices archived' });
       console.log(hit.content);
       await close(); await stores.close();`,
    );
    expect(node(dir, ['check.mjs'])).toContain('Invoices are archived after seven years.');
  });
});

describe('an application project', () => {
  let app = '';

  it("runs the README's From code example verbatim with plain node (core + store-sqlite + embed-local)", () => {
    app = project('app', ['@mem/core', '@mem/store-sqlite', '@mem/embed-local']);
    writeFileSync(join(app, 'example.mts'), readmeExample());
    const out = node(app, ['example.mts']);
    expect(out).toContain('Billing retries failed invoices three times.');
    expect(existsSync(join(app, '.mem', 'mem.db'))).toBe(true);
  });

  it('type-checks an import of every public entry point with skipLibCheck: false', () => {
    expect(app, 'the previous test made the project').not.toBe('');
    const rest = publicPackages()
      .map((p) => p.manifest.name)
      .filter((n) => !['@mem/core', '@mem/store-sqlite', '@mem/embed-local'].includes(n));
    addToProject(app, rest.map(tarball), { typescript: rootPin('typescript'), '@types/node': rootPin('@types/node') });
    const entries: string[] = [];
    for (const { manifest } of publicPackages()) {
      // @mastra/core's own published declarations (its bundled ai-sdk and zod types) do not compile with
      // skipLibCheck: false, whatever imports them; @mem/mastra is type-checked in its package against them.
      if (manifest.name === '@mem/mastra') continue;
      for (const key of Object.keys(manifest.exports ?? {}))
        entries.push(key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`);
    }
    expect(entries).toEqual(
      expect.arrayContaining(['@mem/core', '@mem/core/adapter', '@mem/server', '@mem/server/cli']),
    );
    const imports = entries.map((e, i) => `import * as m${i} from '${e}';`).join('\n');
    writeFileSync(
      join(app, 'check.ts'),
      `${imports}\nexport const entryPoints = [${entries.map((_, i) => `m${i}`).join(', ')}];\n` +
        `import { createStack, createInMemoryKnowledgeStore, type Stack } from '@mem/core';\n` +
        `import type { KnowledgeStore } from '@mem/core/adapter';\n` +
        `const store: KnowledgeStore = createInMemoryKnowledgeStore();\n` +
        `export const stack: Stack = createStack({ knowledge: store });\n`,
    );
    writeTsconfig(app, ['check.ts'], { skipLibCheck: false, noEmit: true });
    tsc(app);
    // The check can fail: a wrong use of a public type is reported.
    writeFileSync(
      join(app, 'check.ts'),
      `import { createStack } from '@mem/core';\nexport const s = createStack({ knowledge: 42 });\n`,
    );
    expect(() => tsc(app)).toThrow(/TS2322|TS2353|TS2345/);
  });

  it('the packed mem command stores and searches, with global flags before or after the command', () => {
    expect(app).not.toBe('');
    const mem = join(app, 'node_modules', '.bin', 'mem');
    expect(existsSync(join(app, 'node_modules', 'tsx')), 'tsx is installed: the CLI must run built JavaScript').toBe(
      false,
    );
    const help = run(mem, ['--help'], { cwd: app });
    expect(help).toContain('Usage: mem <command>');
    const stored = JSON.parse(
      run(
        mem,
        [
          '--db',
          './cli.db',
          '--embedder',
          'hashing',
          '--json',
          'store',
          'Standup moved to 10:30 on Mondays',
          '--tags',
          'team',
        ],
        { cwd: app },
      ),
    ) as { id: string };
    expect(stored.id).toBeTruthy();
    const found = JSON.parse(
      run(mem, ['search', 'when is standup', '--db', './cli.db', '--embedder', 'hashing', '--json'], { cwd: app }),
    ) as { results: { id: string; content: string }[] };
    expect(found.results[0]?.content).toBe('Standup moved to 10:30 on Mondays');
    expect(() => run(mem, ['--db', './cli.db', '--nope', 'search', 'x'], { cwd: app })).toThrow(/not a global flag/);
  });

  it('npx mem serve --open starts the server on the embedded default (SQLite + the local embedder)', async () => {
    expect(app).not.toBe('');
    const port = await freePort();
    const child = spawn('npx', ['--no-install', 'mem', 'serve', '--open', '--port', String(port)], {
      cwd: app,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(
        async () => (await fetch(`${base}/healthz`)).ok,
        120_000,
        () => output,
      );
      const stored = await fetch(`${base}/v1/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'The on-call rotation changes every Tuesday.' }),
      });
      expect(stored.status).toBe(201);
      const search = await fetch(`${base}/v1/memories/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'when does on-call rotate' }),
      });
      const body = (await search.json()) as { results: { content: string }[] };
      expect(body.results[0]?.content).toBe('The on-call rotation changes every Tuesday.');
      expect((await fetch(`${base}/`)).headers.get('content-type')).toContain('text/html');
      expect(existsSync(join(app, '.mem', 'mem.db'))).toBe(true);
    } finally {
      await stop(child);
    }
  });
});

describe('a release dry run', () => {
  it('changeset version then pnpm publish -r --dry-run publishes every public package and no private one', () => {
    const copy = mkdtempSync(join(tmpdir(), 'mem-release-copy-'));
    projects.push(copy);
    // A copy of the working tree (tracked and new files, plus the built dist folders); node_modules linked, not copied.
    const files = run('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root }).split('\n').filter(Boolean);
    for (const f of files) if (existsSync(join(root, f))) cpSync(join(root, f), join(copy, f), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    // Published: every public package of packages/ and apps/, and the conformance suites of tooling/testkit.
    const published = [...publicPackages(), workspacePackage('@mem/testkit')];
    for (const { dir, manifest } of published) {
      const rel = dir.slice(root.length + 1);
      if (existsSync(join(dir, 'dist'))) cpSync(join(dir, 'dist'), join(copy, rel, 'dist'), { recursive: true });
      if (existsSync(join(dir, 'node_modules')))
        symlinkSync(join(dir, 'node_modules'), join(copy, rel, 'node_modules'));
      expect(manifest.version).toBeTruthy();
    }
    const before = new Map(published.map((p) => [p.manifest.name, p.manifest.version]));
    run('pnpm', ['exec', 'changeset', 'version'], { cwd: copy });
    const out = run('pnpm', ['publish', '-r', '--dry-run', '--no-git-checks', '--access', 'public'], { cwd: copy });
    for (const [name, version] of before) {
      const manifest = JSON.parse(
        readFileSync(
          join(copy, published.find((p) => p.manifest.name === name)!.dir.slice(root.length + 1), 'package.json'),
          'utf8',
        ),
      ) as { version: string };
      expect(manifest.version, `${name} was not versioned by the changesets`).not.toBe(version);
      expect(out, `${name} missing from the publish dry run`).toContain(`${name}@${manifest.version}`);
    }
    for (const priv of ['@mem/bench', '@mem/release-check']) expect(out).not.toContain(`${priv}@`);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, ms: number, context: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms; output:\n${context()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
