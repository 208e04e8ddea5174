import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { call, memProcess, until } from './helpers.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-server-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null || !c.pid) continue;
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const env = { ...process.env, MEM_EMBEDDER: 'hashing', MEM_DB: join(dir, 'mem.db') };

/** `mem serve … --json` in its own process group; resolves with the printed URLs and a stop function. */
async function serve(args: string[]) {
  const p = memProcess(['serve', '--port', '0', '--json', ...args]);
  const child = spawn(p.command, p.args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const info = await until(
    () => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) return JSON.parse(line) as { url: string; mcp: string; inspector: string; auth: string };
      if (child.exitCode !== null) throw new Error(`mem serve exited: ${stderr}`);
      return undefined;
    },
    30_000,
    'mem serve to start',
  );
  return {
    info,
    logs: () => stderr,
    /** SIGTERM to the whole group (the bin wrapper and the server process). */
    stop: async () => {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      await until(
        () =>
          fetch(`${info.url}/healthz`).then(
            () => undefined,
            () => true,
          ),
        10_000,
        'the port to close',
      );
    },
  };
}

describe('mem serve', () => {
  it('runs open on loopback only with --open, as the flags’ principal, then requires keys once one exists', async () => {
    const closed = await serve(['--space', 'team-x', '--agent', 'writer']);
    expect(closed.info.auth).toBe('keys');
    expect((await call(closed.info.url, 'GET', '/v1/stats')).status).toBe(401);
    await closed.stop();
    const open = await serve(['--open', '--space', 'team-x', '--agent', 'writer']);
    expect(open.info).toMatchObject({ auth: 'open', mcp: `${open.info.url}/mcp`, inspector: `${open.info.url}/` });
    const stored = await call(open.info.url, 'POST', '/v1/memories', { body: { content: 'Served by mem serve.' } });
    expect(stored.status).toBe(201);
    expect((await call(open.info.url, 'GET', '/v1/stats')).body).toMatchObject({ space: 'team-x', documents: 1 });
    await open.stop();
    expect(open.logs()).toContain('"msg":"request"');
    expect(open.logs()).toContain('"principal":"team-x/writer"');

    const p = memProcess(['keys', 'create', '--space', 'team-x', '--agent', 'reader', '--role', 'worker', '--json']);
    const { key } = JSON.parse((await exec(p.command, p.args, { env })).stdout);
    const reopen = memProcess(['serve', '--open', '--port', '0']);
    const refusedOpen = await exec(reopen.command, reopen.args, { env }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(refusedOpen?.code).toBe(1);
    expect(refusedOpen?.stderr).toContain('API key(s) exist');
    const secured = await serve([]);
    expect(secured.info.auth).toBe('keys');
    expect((await call(secured.info.url, 'GET', '/v1/stats')).status).toBe(401);
    expect((await call(secured.info.url, 'GET', '/v1/stats', { key })).body).toMatchObject({
      space: 'team-x',
      documents: 1,
    });
    await secured.stop();
  });

  it('refuses another address without keys, and bad flags as usage errors', async () => {
    const p = memProcess(['serve', '--open', '--host', '0.0.0.0', '--port', '0', '--db', join(dir, 'other.db')]);
    const refused = await exec(p.command, p.args, { env }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toContain('Refusing to listen on 0.0.0.0 without API keys');
    const q = memProcess(['serve', '--port', 'eighty']);
    await expect(exec(q.command, q.args, { env })).rejects.toMatchObject({ code: 2 });
    const r = memProcess(['serve', '--headers-timeout', '90000', '--request-timeout', '60000']);
    await expect(exec(r.command, r.args, { env })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--headers-timeout'),
    });
  });
});
