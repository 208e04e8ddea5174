/**
 * Where the mem command is, for the benches that run it (cold-start times it, attack's replicas serve through it).
 * The bench does not depend on the CLI (the CLI depends on the bench to start it): `mem bench` names its own package
 * folder in MEM_BENCH_CLI_DIR when it starts a bench.
 */
import { join } from 'node:path';

export const CLI_DIR_ENV = 'MEM_BENCH_CLI_DIR';

/** The mem command's package folder, with its `bin/mem-dev.js` (source through tsx) and `dist/bin.js` (built). */
export function memCliDir(): string {
  const dir = process.env[CLI_DIR_ENV];
  if (!dir)
    throw new Error(
      `${CLI_DIR_ENV} is not set: this bench runs the mem command, so start it through that command (pnpm mem bench <name> …), which names its own folder there.`,
    );
  return dir;
}

/** The repository's source launcher of the mem command. */
export const memDevBin = (): string => join(memCliDir(), 'bin', 'mem-dev.js');
