/**
 * The layer rules, read from the source: which package may import which, core doing no I/O of its own, and no source
 * file over 500 lines. A new import across packages fails here until the rule (and docs/architecture.md) says it may.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/pack.js';

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(join(ROOT, f)));
const isTest = (f: string) => /\.test\.ts$|\/test\/|\/scratch\//.test(f);
/** The non-test TypeScript sources of a package folder (`packages/core`). */
const sources = (dir: string) => tracked.filter((f) => f.startsWith(`${dir}/src/`) && f.endsWith('.ts') && !isTest(f));

/** Every module a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s+'([^']+)'/g)) found.add(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+'([^']+)'/g)) found.add(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.add(m[1]!);
  return [...found];
}

/** The mem packages a package's sources import, e.g. `@mem/core` for `@mem/core/adapter`. */
function memImports(dir: string): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const file of sources(dir))
    for (const spec of importsOf(file)) {
      const m = /^(@mem\/[a-z0-9-]+)/.exec(spec);
      if (m) by.set(m[1]!, [...(by.get(m[1]!) ?? []), file]);
    }
  return by;
}

const packages = tracked
  .filter((f) => /^packages\/[^/]+\/package\.json$/.test(f))
  .map((f) => f.slice(0, -'/package.json'.length))
  .sort();
const nameOf = (dir: string) =>
  (JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string }).name;

/** What each kind of package may import of mem (apps may import anything they assemble). */
const FRAMEWORKS = ['@mem/ai-sdk', '@mem/openai-agents', '@mem/langgraph', '@mem/langchain'];
function allowed(name: string): string[] {
  if (name === '@mem/core') return [];
  if (name === '@mem/operations') return ['@mem/core'];
  // The framework adapters are doors: shims over the stack and the operation table.
  if (FRAMEWORKS.includes(name)) return ['@mem/core', '@mem/operations'];
  // Every other package is an adapter or a service plug-in: core only, never another adapter.
  return ['@mem/core'];
}

describe('the layers', () => {
  it('finds the packages and their imports', () => {
    expect(packages.map(nameOf)).toEqual(expect.arrayContaining(['@mem/core', '@mem/operations', '@mem/store-sqlite']));
    expect([...memImports('packages/store-sqlite').keys()]).toEqual(['@mem/core']);
  });

  it('each package imports only the mem packages its layer allows (adapters: core alone; doors: core and the table)', () => {
    const wrong: string[] = [];
    for (const dir of packages) {
      const name = nameOf(dir);
      for (const [imported, files] of memImports(dir))
        if (imported !== name && !allowed(name).includes(imported))
          wrong.push(`${name} imports ${imported} (${files[0]})`);
    }
    expect(wrong).toEqual([]);
  });

  it('each package declares what it imports, and depends on no adapter', () => {
    const wrong: string[] = [];
    for (const dir of packages) {
      const name = nameOf(dir);
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
      for (const imported of memImports(dir).keys())
        if (imported !== name && !(imported in declared))
          wrong.push(`${name} imports ${imported} without declaring it`);
      for (const dep of Object.keys(declared))
        if (dep.startsWith('@mem/') && !allowed(name).includes(dep)) wrong.push(`${name} depends on ${dep}`);
    }
    expect(wrong).toEqual([]);
  });

  it('core does no I/O of its own: no file system, network, process or thread modules', () => {
    // node:crypto hashes and draws ids; node:module's createRequire loads the tokenizer's data. Nothing else of node.
    const allowedNode = new Set(['node:crypto', 'node:module']);
    const wrong: string[] = [];
    for (const file of sources('packages/core'))
      for (const spec of importsOf(file))
        if (
          (spec.startsWith('node:') && !allowedNode.has(spec)) ||
          /^(fs|net|http|https|child_process|worker_threads)$/.test(spec)
        )
          wrong.push(`${file} imports ${spec}`);
    expect(wrong).toEqual([]);
  });

  it('no source file is over 500 lines', () => {
    const long = tracked
      .filter((f) => /^(packages|apps|tooling)\//.test(f) && /\.(ts|mts)$/.test(f) && !isTest(f))
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1 }))
      .filter((x) => x.lines > 500)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });
});
