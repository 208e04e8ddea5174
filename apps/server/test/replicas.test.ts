/**
 * Three `mem serve` processes on one PostgreSQL (MEM_TEST_POSTGRES_URL when set, else PGlite on a loopback port):
 * writes spread over the replicas are each found once, keys and rate limits are shared, spaces stay apart.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ServeProcess, startServeProcess } from '@mem/testkit/attack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgliteServer, startPgliteServer } from '../../../packages/store-postgres/test/pglite-server.js';
import { call, memProcess, until } from './helpers.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-replicas-'));
const children: ChildProcess[] = [];
let pglite: PgliteServer | undefined;
let url = '';
let env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  if (process.env.MEM_TEST_POSTGRES_URL) url = process.env.MEM_TEST_POSTGRES_URL;
  else {
    pglite = await startPgliteServer();
    url = pglite.url;
  }
  env = {
    ...process.env,
    MEM_EMBEDDER: 'hashing',
    MEM_STORE: 'postgres',
    MEM_DB: url,
    MEM_WORKSPACE: join(dir, 'ws'),
  };
}, 120_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null || !c.pid) continue;
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await pglite?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function mem(args: string[]): Promise<string> {
  const p = memProcess(args);
  return (await exec(p.command, p.args, { env })).stdout;
}

async function createKey(space: string, agent: string): Promise<{ key: string; id: string }> {
  return JSON.parse(await mem(['keys', 'create', '--space', space, '--agent', agent, '--role', 'worker', '--json']));
}

async function serve(args: string[] = []): Promise<ServeProcess> {
  const server = await startServeProcess(memProcess(['serve', '--port', '0', '--json', ...args]), env);
  children.push(server.child);
  return server;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('three mem serve replicas on one PostgreSQL', () => {
  it('find every acknowledged write once, share keys (a revocation reaches all) and rate limits, keep spaces apart', async () => {
    // Spaces of this run only: a database reused by an earlier run keeps its memories (a second store is a 200).
    const run = Date.now().toString(36);
    const acme = await createKey(`acme-${run}`, 'writer');
    const beta = await createKey(`beta-${run}`, 'writer');
    const flood = await createKey(`acme-${run}`, 'flood');
    const replicas = await Promise.all([1, 2, 3].map(() => serve(['--rate-limit', '1', '--rate-burst', '50'])));
    expect(replicas.map((r) => r.auth)).toEqual(['keys', 'keys', 'keys']);

    // Writes spread round robin: 18 memories and 9 conversation messages in acme, 6 memories in beta.
    const acked: string[] = [];
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 18; i++) {
      const r = replicas[i % 3]!;
      const content = `acme replica note ${i}: deploy window ${i * 7}`;
      writes.push(
        call(r.url, 'POST', '/v1/memories', { body: { content }, headers: bearer(acme.key) }).then((res) => {
          if (res.status === 201) acked.push(content);
        }),
      );
    }
    for (let i = 0; i < 6; i++) {
      const r = replicas[(i + 1) % 3]!;
      writes.push(
        call(r.url, 'POST', '/v1/memories', {
          body: { content: `beta private note ${i}` },
          headers: bearer(beta.key),
        }).then((res) => expect(res.status).toBe(201)),
      );
    }
    const messages: string[] = [];
    for (let i = 0; i < 9; i++) {
      const r = replicas[i % 3]!;
      const content = `message ${i} through replica ${(i % 3) + 1}`;
      // One agent's conversation written through all three replicas, one message at a time.
      const res = await call(r.url, 'POST', '/v1/agents/writer/conversation/messages', {
        body: { role: 'user', content },
        headers: bearer(acme.key),
      });
      expect(res.status).toBe(201);
      messages.push(content);
    }
    await Promise.all(writes);
    expect(acked).toHaveLength(18);

    for (const r of replicas) {
      const exported = await call(r.url, 'GET', '/v1/export', { headers: bearer(acme.key) });
      expect(exported.status).toBe(200);
      const text = String(exported.text);
      const rows = text
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .map((l) => JSON.parse(l) as { content?: string });
      for (const content of acked) expect(rows.filter((row) => row.content === content)).toHaveLength(1);
      expect(text).not.toContain('beta private note');
      const convo = await call(r.url, 'GET', '/v1/agents/writer/conversation', { headers: bearer(acme.key) });
      expect(convo.status, JSON.stringify(convo.body)).toBe(200);
      expect((convo.body as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual(messages);
    }
    const betaStats = await call(replicas[2]!.url, 'GET', '/v1/stats', { headers: bearer(beta.key) });
    expect(betaStats.body).toMatchObject({ space: `beta-${run}`, documents: 6 });

    // A key used on every replica (so each has verified and cached it), revoked through the CLI: all refuse it.
    const temp = await createKey(`acme-${run}`, 'temp');
    for (const r of replicas)
      expect((await call(r.url, 'GET', '/v1/whoami', { headers: bearer(temp.key) })).status).toBe(200);
    await mem(['keys', 'revoke', temp.id]);
    const revokedAt = Date.now();
    for (const r of replicas)
      await until(
        async () =>
          (await call(r.url, 'GET', '/v1/whoami', { headers: bearer(temp.key) })).status === 401 ? true : undefined,
        5_000,
        'the revoked key to be refused',
      );
    const refusedWithinMs = Date.now() - revokedAt;
    expect(refusedWithinMs).toBeLessThan(5_000);

    // One budget per key across replicas: a burst of 50 at 1/s, not 3 × 50 (the writer key above spends ~40 of its own).
    const started = Date.now();
    let granted = 0;
    let refused = 0;
    for (let i = 0; i < 200 && refused === 0; i++) {
      const res = await call(replicas[i % 3]!.url, 'GET', '/v1/whoami', { headers: bearer(flood.key) });
      if (res.status === 200) granted++;
      else if (res.status === 429) refused++;
    }
    const seconds = (Date.now() - started) / 1000;
    expect(refused).toBe(1);
    expect(granted).toBeLessThanOrEqual(50 + Math.ceil(seconds) + 1);
    console.log(
      `[replicas] ${acked.length} + 6 memories and ${messages.length} messages over 3 replicas, each found once; revoked key refused by all after ${refusedWithinMs} ms; shared bucket granted ${granted} of a burst of 50 before 429`,
    );
    // A fourth server keeping transcripts in a Markdown workspace would split them: refused, saying what to do.
    const p = memProcess(['serve', '--port', '0', '--json', '--transcripts', 'markdown']);
    const refusedStart = await exec(p.command, p.args, { env }).then(
      () => null,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(refusedStart?.code).not.toBe(0);
    expect(refusedStart?.stderr).toContain('other mem serve replica(s) run on this database');
    expect(refusedStart?.stderr).toContain('--transcripts store');
    await Promise.all(replicas.map((r) => r.stop()));
  });
});
