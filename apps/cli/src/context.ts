/**
 * The `mem` command's global flags, read with the environment into the settings of @mem/server's composition root
 * (`readSettings`), and the stack they ask for (`openStack`): one place parses `MEM_*` for every app.
 */
import type { Principal, Stack } from '@mem/core';
import { openStack as composeStack, readSettings, type Settings } from '@mem/server';

/** A mistake on the command line: exit code 2 with the command's usage (the one class the table's bindings throw). */
export { UsageError } from '@mem/operations';

export interface GlobalOptions extends Settings {
  json: boolean;
}

export type Env = Record<string, string | undefined>;

export const GLOBAL_FLAGS = {
  store: { type: 'string' },
  db: { type: 'string' },
  space: { type: 'string' },
  agent: { type: 'string' },
  role: { type: 'string' },
  user: { type: 'string' },
  json: { type: 'boolean' },
  embedder: { type: 'string' },
  workspace: { type: 'string' },
  transcripts: { type: 'string' },
  secretlint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Global options from flags, then environment, then defaults (an explicit flag beats an env var). */
export function globalOptions(values: Record<string, unknown>, env: Env, cwd: string): GlobalOptions {
  return { ...readSettings(env, values, cwd), json: values.json === true };
}

export function principalOf(g: GlobalOptions): Principal {
  return { space: g.space, agentId: g.agent, role: g.role, ...(g.user !== undefined ? { userId: g.user } : {}) };
}

/** Build the stack the global flags ask for (the environment was read into `g` already). */
export async function openStack(g: GlobalOptions, _env?: Env): Promise<Stack> {
  return composeStack(g);
}
