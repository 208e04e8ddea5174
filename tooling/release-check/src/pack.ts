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

/** Every package of the workspace that is not private (packages/* and apps/*). */
export function publicPackages(): PublicPackage[] {
  const found: PublicPackage[] = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group)).sort()) {
      const dir = join(ROOT, group, name);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
      if (!manifest.private) found.push({ dir, manifest });
    }
  }
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

/** Build every public package (turbo, dependencies first) and pack each into `dest`. Returns name → tarball path. */
export function buildAndPack(dest: string): Map<string, string> {
  const packages = publicPackages();
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

/** The version of a dev dependency pinned at the workspace root (typescript, @types/node). */
export function rootPin(name: string): string {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
  const v = (root.devDependencies as Record<string, string> | undefined)?.[name];
  if (!v) throw new Error(`the workspace root pins no ${name}`);
  return v;
}
