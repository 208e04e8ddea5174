/**
 * Forget means gone from disk, while the server runs: `mem serve` on a SQLite file, a memory stored over HTTP with a
 * unique marker, `POST /v1/forget`, and then — before the server stops — no file of the database folder (the database,
 * its -wal and -shm) holds the marker. (The WAL used to keep it until the server closed the file.)
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readTreeText } from '@mem/testkit';
import { afterAll, expect, it } from 'vitest';
import { call, memProcess, until } from './helpers.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-server-forget-'));
const dbDir = join(dir, 'db');
const env = {
  ...process.env,
  MEM_EMBEDDER: 'hashing',
  MEM_DB: join(dbDir, 'mem.db'),
  MEM_WORKSPACE_DIR: join(dir, 'ws'),
};
let child: ChildProcess | undefined;
afterAll(() => {
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function key(agent: string, role: 'lead' | 'worker'): Promise<string> {
  const p = memProcess(['keys', 'create', '--space', 'acme', '--agent', agent, '--role', role, '--json']);
  return JSON.parse((await exec(p.command, p.args, { env })).stdout).key as string;
}

it(
  'forget leaves no trace of the marker in the database folder while mem serve runs',
  { timeout: 90_000 },
  async () => {
    const lead = await key('lead-1', 'lead');
    const alice = await key('alice', 'worker');
    const p = memProcess(['serve', '--port', '0', '--json']);
    child = spawn(p.command, p.args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    const { url } = await until(
      () => {
        const line = stdout.split('\n').find((l) => l.startsWith('{'));
        if (line) return JSON.parse(line) as { url: string };
        if (child!.exitCode !== null) throw new Error(`mem serve exited: ${stderr}`);
        return undefined;
      },
      30_000,
      'mem serve to start',
    );

    const marker = `qzxsrv${Date.now().toString(36)}marker`;
    const stored = await call(url, 'POST', '/v1/memories', { key: alice, body: { content: `Alice keeps ${marker}.` } });
    expect(stored.status).toBe(201);
    const kept = await call(url, 'POST', '/v1/memories', {
      key: lead,
      body: { content: 'The lead keeps qzxkeptmarker.' },
    });
    expect(kept.status).toBe(201);
    expect(readTreeText(dbDir).includes(marker), 'the scan sees what the running server wrote').toBe(true);

    const forgot = await call(url, 'POST', '/v1/forget', { key: lead, body: { agentId: 'alice' } });
    expect(forgot.status).toBe(200);
    expect(forgot.body.removed.memories.documents).toBe(1);

    // The server is still running: every file of the database folder (mem.db, mem.db-wal, mem.db-shm).
    const raw = readTreeText(dbDir);
    expect(raw.includes('qzxkeptmarker'), 'the scan sees the data that stays').toBe(true);
    expect(raw.includes(marker.slice(0, 10)), 'a trace of the forgotten memory is in the database folder').toBe(false);
    expect(child.exitCode).toBeNull();
  },
);
