/**
 * Release helpers: build and pack the public packages the way a release does (`pnpm pack` turns `workspace:` ranges
 * into versions), and make throwaway npm projects outside the workspace that install those tarballs, as a user would.
 */
import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  type?: string;
  engines?: { node?: string };
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [field: string]: unknown;
}

export interface PublicPackage {
  dir: string;
  manifest: PackageManifest;
}

/** The packages of some workspace folders (packages, apps, tooling), in name order within each. */
function packagesIn(groups: readonly string[]): PublicPackage[] {
  const found: PublicPackage[] = [];
  for (const group of groups) {
    for (const name of readdirSync(join(ROOT, group)).sort()) {
      const dir = join(ROOT, group, name);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      found.push({ dir, manifest: JSON.parse(readFileSync(file, 'utf8')) as PackageManifest });
    }
  }
  return found;
}

/** Every package of the workspace that is not private (packages/* and apps/*). */
export function publicPackages(): PublicPackage[] {
  return packagesIn(['packages', 'apps']).filter((p) => !p.manifest.private);
}

/** One package of the workspace by name, wherever it lives (packages/*, apps/* or tooling/*). */
export function workspacePackage(name: string): PublicPackage {
  const found = packagesIn(['packages', 'apps', 'tooling']).find((p) => p.manifest.name === name);
  if (!found) throw new Error(`no workspace package is named ${name}`);
  return found;
}

/**
 * The environment for child processes: the Node running this test first on PATH (so `npm`, `npx` and installed bins
 * run on it), and its C headers for native builds when this Node came from the registry's `node` package.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const nodeBin = dirname(process.execPath);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    TURBO_TELEMETRY_DISABLED: '1',
    ...extra,
  };
  const home = dirname(nodeBin);
  if (existsSync(join(home, 'include', 'node', 'node.h'))) env.npm_config_nodedir = home;
  return env;
}

export function run(command: string, args: string[], options: ExecFileSyncOptions & { cwd: string }): string {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      ...options,
    }) as string;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${options.cwd}: ${err.message}\n--- stdout\n${String(err.stdout ?? '').slice(-4000)}\n--- stderr\n${String(err.stderr ?? '').slice(-4000)}`,
    );
  }
}

/**
 * Build the given packages (default: every public one) with turbo, dependencies first, and pack each into `dest`.
 * Returns name → tarball path.
 */
export function buildAndPack(dest: string, packages: PublicPackage[] = publicPackages()): Map<string, string> {
  run(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--concurrency=2', ...packages.map((p) => `--filter=${p.manifest.name}`)],
    { cwd: ROOT },
  );
  mkdirSync(dest, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const p of packages) {
    const out = run('pnpm', ['pack', '--pack-destination', dest], { cwd: p.dir });
    const file = out
      .trim()
      .split('\n')
      .map((l) => l.trim())
      .reverse()
      .find((l) => l.endsWith('.tgz'));
    if (!file) throw new Error(`pnpm pack printed no tarball for ${p.manifest.name}:\n${out}`);
    const path = resolve(dest, basename(file));
    if (!existsSync(path)) throw new Error(`pnpm pack reported ${path}, which does not exist`);
    tarballs.set(p.manifest.name, path);
  }
  return tarballs;
}

/** A file of a tarball (paths inside start with `package/`). */
export function readFromTarball(tarball: string, path: string): string {
  return execFileSync('tar', ['-xzOf', tarball, `package/${path}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

export function listTarball(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/^package\//, ''));
}

/**
 * A fresh npm project in the system's temp folder (outside the workspace, so nothing resolves from it) with the
 * given tarballs and registry packages installed by `npm install`.
 */
export function makeProject(label: string, tarballs: string[], registry: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `mem-install-${label}-`));
  const dependencies: Record<string, string> = { ...registry };
  for (const t of tarballs) dependencies[manifestOf(t).name] = `file:${t}`;
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `mem-install-${label}`, version: '1.0.0', private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  return dir;
}

/** Add tarballs and registry packages to an existing project. */
export function addToProject(dir: string, tarballs: string[], registry: Record<string, string> = {}): void {
  const specs = [...tarballs.map((t) => `file:${t}`), ...Object.entries(registry).map(([n, v]) => `${n}@${v}`)];
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir });
}

const manifests = new Map<string, PackageManifest>();
export function manifestOf(tarball: string): PackageManifest {
  let m = manifests.get(tarball);
  if (!m) {
    m = JSON.parse(readFromTarball(tarball, 'package.json')) as PackageManifest;
    manifests.set(tarball, m);
  }
  return m;
}

/** The README's "From code" TypeScript example, verbatim. */
export function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /## From code[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error('README.md has no "## From code" section with a ```ts block');
  return match[1];
}

/**
 * The code blocks of a Markdown file marked for the release check: an HTML comment `<!-- release-check: NAME -->` on
 * the line right before a fenced block. Returns NAME → the block's text, verbatim.
 */
export function markedBlocks(file: string): Map<string, string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, name, code] of text.matchAll(/^<!-- release-check: (\S+) -->\n```\w*\n([\s\S]*?)^```$/gm)) {
    if (blocks.has(name!)) throw new Error(`${file}: two blocks are marked ${name}`);
    blocks.set(name!, code!);
  }
  return blocks;
}

/**
 * A consumer project's tsconfig.json for `files`: ES2022, NodeNext, strict, Node's types, plus `options` (e.g.
 * `skipLibCheck`, `noEmit` or an `outDir`).
 */
export function writeTsconfig(dir: string, files: string[], options: Record<string, unknown> = {}): void {
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    types: ['node'],
    ...options,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
}

/** Run the project's own TypeScript (installed in it) on its tsconfig.json, on the Node running this test. */
export function tsc(dir: string): string {
  return run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
    cwd: dir,
  });
}

/** The version of a dev dependency pinned at the workspace root (typescript, @types/node). */
export function rootPin(name: string): string {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
  const v = (root.devDependencies as Record<string, string> | undefined)?.[name];
  if (!v) throw new Error(`the workspace root pins no ${name}`);
  return v;
}
