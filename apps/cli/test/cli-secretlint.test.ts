import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeCredentials } from '@mem/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { globalOptions } from '../src/context.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-secretlint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { MEM_DB: join(dir, 'mem.db'), MEM_WORKSPACE_DIR: dir, MEM_EMBEDDER: 'none' };

describe('mem with secretlint (on by default)', () => {
  it("refuses a credential only secretlint knows, like mem's own rules, and stores nothing", async () => {
    const cred = fakeCredentials().tailscale;
    const r = await runCli(['store', `the tailnet key is ${cred}`], dir, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mem store: SECRET_DETECTED: Refused: the content contains a secret: .*found by secretlint\) at line 1, column 20\./,
    );
    expect(r.stderr).not.toContain(cred);
    const stats = await runCli(['stats', '--json'], dir, env);
    expect(stats.json()).toMatchObject({ documents: 0 });
  });

  it("--secretlint off (or MEM_SECRETLINT=off) runs mem's own rules alone; another value is a usage error", async () => {
    const cred = fakeCredentials().tailscale;
    expect((await runCli(['store', `key ${cred}`, '--secretlint', 'off'], dir, env)).code).toBe(0);
    expect((await runCli(['store', `other ${cred}`], dir, { ...env, MEM_SECRETLINT: 'off' })).code).toBe(0);
    const bad = await runCli(['stats'], dir, { ...env, MEM_SECRETLINT: 'maybe' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--secretlint must be "on" or "off" (got "maybe")');
    expect(globalOptions({}, {}, '/w').secretlint).toBe(true);
    expect(globalOptions({ secretlint: 'on' }, { MEM_SECRETLINT: 'off' }, '/w').secretlint).toBe(true);
  });
});
