/**
 * `@mem/testkit` as an adapter author gets it: the packed `@mem/core` and `@mem/testkit`, with the workspace's vitest
 * and TypeScript, installed by npm into a project outside the workspace. The example store of
 * docs/writing-an-adapter.md, its test file and its plug-in script (the blocks marked `release-check:`, taken verbatim,
 * so that the guide and this test cannot drift) and the first example of the testkit's README are written there,
 * type-checked and run: every suite test passes. Then the suites run on copies of the store broken on purpose, and
 * must fail. CI runs this file on Node 22 and on 24.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildAndPack,
  childEnv,
  listTarball,
  makeProject,
  manifestOf,
  markedBlocks,
  ROOT,
  readFromTarball,
  rootPin,
  run,
  tsc,
  workspacePackage,
  writeTsconfig,
} from '../src/pack.js';

const GUIDE = 'docs/writing-an-adapter.md';
const README = 'tooling/testkit/README.md';
const STORE = 'map-knowledge-store.ts';
const SUITE = 'map-knowledge-store.test.ts';
const PLUG_IN = 'plug-in.ts';

/** Copies of the guide's store, each broken in one way the suite must notice: [folder, what, replaced, by, a failing test]. */
const BROKEN: [string, string, string, string, string][] = [
  [
    'space',
    'neighbours ignore the space',
    '            const line = visible\n',
    '            const line = rows()\n              .filter((o) => matchesFilter(o, { ...query.filter, space: o.space }))\n',
    'never crosses spaces',
  ],
  [
    'stale',
    'an edit keeps the old content',
    '      for (const c of doc(space, docId)) data.chunks.delete(c.id);\n' +
      '      for (const c of chunks) data.chunks.set(c.id, { ...copy(c), accessCount, lastAccessedAt, alpha, beta });\n',
    '',
    'versions every edit with its intent',
  ],
];

const work = mkdtempSync(join(tmpdir(), 'mem-testkit-outside-'));
let project = '';
let tarballs = new Map<string, string>();
const guide = markedBlocks(GUIDE);
const block = (name: string): string => {
  const code = guide.get(name);
  if (code === undefined) throw new Error(`${GUIDE} has no block marked <!-- release-check: ${name} -->`);
  return code;
};

/** A vitest report (`--reporter=json`), reduced to what the checks read. */
interface Report {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; status: string; assertionResults: { title: string; status: string }[] }[];
}

/**
 * Run the project's own vitest (the installed bin, on this Node) and return its JSON report; a failing run is not an
 * error here, a run that writes no report is. The parent's VITEST_* variables are not passed on.
 */
function vitest(args: string[]): Report {
  const out = join(project, `report-${Date.now()}.json`);
  const env = childEnv();
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  let log = '';
  try {
    log = execFileSync(
      process.execPath,
      [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args, '--reporter=json', `--outputFile=${out}`],
      { cwd: project, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    log = `${err.stdout ?? ''}\n${err.stderr ?? ''}`;
  }
  if (!existsSync(out)) throw new Error(`vitest ${args.join(' ')} wrote no report:\n${log.slice(-4000)}`);
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

const failures = (r: Report) =>
  r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => a.title));

beforeAll(() => {
  tarballs = buildAndPack(join(work, 'tarballs'), [workspacePackage('@mem/core'), workspacePackage('@mem/testkit')]);
  project = makeProject('testkit', [...tarballs.values()], {
    vitest: rootPin('vitest'),
    typescript: rootPin('typescript'),
    '@types/node': rootPin('@types/node'),
  });
});

afterAll(() => {
  for (const dir of [project, work]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed @mem/testkit', () => {
  it('ships its public entry only: built files with declarations, versions for its peers, a README that says ESM only', () => {
    const t = tarballs.get('@mem/testkit')!;
    expect(readFromTarball(t, 'package.json')).not.toContain('workspace:');
    const m = manifestOf(t);
    expect(m.private).toBeUndefined();
    expect(m.type).toBe('module');
    expect(m.engines?.node).toBe('>=22');
    expect(Object.keys(m.exports ?? {})).toEqual(['.']);
    expect(m.peerDependencies?.['@mem/core']).toBe(`^${manifestOf(tarballs.get('@mem/core')!).version}`);
    expect(m.peerDependencies?.vitest).toBe(`^${rootPin('vitest')}`);
    const files = listTarball(t);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts']));
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
    expect(readFromTarball(t, 'README.md')).toMatch(/ESM only/);
  });
});

describe("the adapter guide's example store, outside the workspace", () => {
  it('type-checks, passes every test of the published suites, and plugs into a stack', () => {
    for (const name of [STORE, SUITE, PLUG_IN]) writeFileSync(join(project, name), block(name));
    const readme = markedBlocks(README).get('in-memory.test.ts');
    expect(readme, `${README} has no block marked <!-- release-check: in-memory.test.ts -->`).toBeDefined();
    writeFileSync(join(project, 'in-memory.test.ts'), readme!);
    writeTsconfig(project, [STORE, SUITE, PLUG_IN, 'in-memory.test.ts'], {
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      outDir: 'out',
    });
    tsc(project);

    const report = vitest(['--exclude', 'out/**', '--exclude', 'broken/**']);
    const results = Object.fromEntries(
      report.testResults.map((f) => [basename(f.name), f.assertionResults.map((a) => a.status)]),
    );
    expect(Object.keys(results).sort()).toEqual(['in-memory.test.ts', SUITE]);
    expect(failures(report)).toEqual([]);
    expect(report.numFailedTests).toBe(0);
    expect(report.testResults.map((f) => f.status)).toEqual(['passed', 'passed']);
    // The guide's store runs every test of both suites; the README's in-memory store skips the closed-store one.
    expect(results[SUITE]!.length).toBeGreaterThan(20);
    expect(results[SUITE]!.filter((status) => status !== 'passed')).toEqual([]);
    expect(results['in-memory.test.ts']!.filter((status) => status === 'passed').length).toBeGreaterThan(20);

    // The plug-in script, compiled by the check above, runs on plain node.
    const out = run(process.execPath, [join(project, 'out', 'plug-in.js')], { cwd: project });
    expect(out).toContain('The map store keeps memories in process memory.');
  });

  it("states the example's real size in its cost table", () => {
    const doc = readFileSync(join(ROOT, GUIDE), 'utf8');
    const lines = (code: string) => code.split('\n').length - 1;
    const row = (label: string) => new RegExp(`^\\| ${label}[^|\\n]*\\| 1 \\| (\\d+) \\|$`, 'm').exec(doc)?.[1];
    expect(Number(row('the Map store above')), 'the row of the Map store').toBe(lines(block(STORE)));
    expect(Number(row('its test file')), 'the row of its test file').toBe(lines(block(SUITE)));
  });

  it('fails on copies broken on purpose: the suites can tell a wrong store', () => {
    for (const [folder, what, replaced, by] of BROKEN) {
      const store = block(STORE);
      expect(store, `${what}: the line to break is no longer in the guide's store`).toContain(replaced);
      mkdirSync(join(project, 'broken', folder), { recursive: true });
      writeFileSync(join(project, 'broken', folder, STORE), store.replace(replaced, by));
      writeFileSync(join(project, 'broken', folder, SUITE), block(SUITE));
    }
    const report = vitest(['--dir', 'broken']);
    for (const [folder, what, , , failing] of BROKEN) {
      const file = report.testResults.find((f) => f.name.endsWith(join('broken', folder, SUITE)));
      expect(file, `${folder}: no report`).toBeDefined();
      const failed = file!.assertionResults.filter((a) => a.status === 'failed').map((a) => a.title);
      expect(failed.length, `${what}: the suite passed`).toBeGreaterThan(0);
      expect(
        failed.some((t) => t.includes(failing)),
        `${what}: "${failing}" did not fail (${failed.join('; ')})`,
      ).toBe(true);
    }
    expect(report.numFailedTests).toBeGreaterThan(0);
  });
});
