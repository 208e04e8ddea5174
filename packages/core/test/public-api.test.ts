import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as adapterEntry from '../src/adapter.js';
import * as appEntry from '../src/index.js';

const read = (relative: string): string => readFileSync(new URL(relative, import.meta.url), 'utf8');
const readme = read('../README.md');

/** Every name in backticks in the README (a table cell like `createStack`, or inline prose). */
const documented = new Set([...readme.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]));

/** The names of the `export { … }` and `export type { … }` lists of an entry file (values and types alike). */
function listedExports(source: string): string[] {
  const names: string[] = [];
  for (const list of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'[^']+';/g)) {
    for (const raw of list[1]!.split(',')) {
      const item = raw.replace(/^\s*type\s+/, '').trim();
      if (!item) continue;
      const alias = item.split(/\s+as\s+/);
      names.push((alias[1] ?? alias[0])!.trim());
    }
  }
  return names;
}

const entries = [
  { name: '@mem/core', file: '../src/index.ts', values: Object.keys(appEntry) },
  { name: '@mem/core/adapter', file: '../src/adapter.ts', values: Object.keys(adapterEntry) },
];

describe('public API', () => {
  for (const entry of entries) {
    const source = read(entry.file);
    const listed = listedExports(source);

    it(`${entry.name} lists every name explicitly (no export *)`, () => {
      expect(source).not.toMatch(/export\s+\*/);
      expect(listed.length).toBeGreaterThan(0);
      // Every runtime value is in an explicit list (the lists are the whole surface).
      expect(entry.values.filter((v) => !listed.includes(v))).toEqual([]);
    });

    it(`${entry.name}: every exported value is documented in README.md`, () => {
      expect(entry.values.filter((v) => !documented.has(v))).toEqual([]);
    });

    it(`${entry.name}: every exported name, types included, is documented in README.md`, () => {
      expect(listed.filter((n) => !documented.has(n))).toEqual([]);
    });
  }

  it('keeps @mem/core small and the two entries apart (MemError is in both)', () => {
    const app = new Set(listedExports(read('../src/index.ts')));
    const adapter = listedExports(read('../src/adapter.ts'));
    expect(app.size).toBeLessThan(180);
    expect(adapter.filter((n) => app.has(n))).toEqual(['MemError']);
  });

  it('the README API tables name nothing that is not exported', () => {
    const exported = new Set([...listedExports(read('../src/index.ts')), ...listedExports(read('../src/adapter.ts'))]);
    const tableNames = [
      ...readme.matchAll(/^\| `([A-Za-z_$][\w$]*)` \| (?:class|function|type|constant|schema) \|/gm),
    ].map((m) => m[1]!);
    expect(tableNames.length).toBeGreaterThan(0);
    expect(tableNames.filter((n) => !exported.has(n))).toEqual([]);
  });
});
