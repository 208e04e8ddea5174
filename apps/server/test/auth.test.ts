import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore, keysPathFor } from '../src/keys.js';
import { call, memProcess, testServer } from './helpers.js';

const exec = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-server-auth-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

describe('KeyStore', () => {
  it('creates mem_<id>_<secret> keys, stores only salt and scrypt hash, verifies, lists and revokes', async () => {
    const path = join(dir, 'k1.keys.db');
    const keys = KeyStore.open(path);
    open.push(keys);
    const { key, info } = await keys.create({ space: 'acme', agentId: 'coder', role: 'worker', label: 'ci' });
    expect(key).toMatch(/^mem_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(`mem_${info.id}_`)).toBe(true);
    const secret = key.slice(`mem_${info.id}_`.length);
    keys.close();
    // Neither the key nor its secret is anywhere in the file.
    const bytes = Buffer.concat([
      readFileSync(path),
      ...['-wal'].map((s) => {
        try {
          return readFileSync(path + s);
        } catch {
          return Buffer.alloc(0);
        }
      }),
    ]);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from(key))).toBe(false);

    const again = KeyStore.open(path);
    open.push(again);
    expect(await again.verify(key)).toEqual({
      keyId: info.id,
      principal: { space: 'acme', agentId: 'coder', role: 'worker' },
    });
    expect(await again.verify(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await again.verify('mem_0000000000000000_xxx')).toBeNull();
    expect(await again.verify('not a key')).toBeNull();
    const listed = await again.list();
    expect(listed).toEqual([
      expect.objectContaining({
        id: info.id,
        space: 'acme',
        agentId: 'coder',
        role: 'worker',
        label: 'ci',
        revokedAt: null,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed[0]).not.toHaveProperty('hash');
    expect(await again.activeCount()).toBe(1);
    // A revocation by another process is seen at once, even though the key is cached as verified here.
    const other = KeyStore.open(path);
    expect(await other.revoke(info.id)).toBe(true);
    expect(await other.revoke(info.id)).toBe(false);
    await other.close();
    expect(await again.verify(key)).toBeNull();
    expect(await again.activeCount()).toBe(0);
  });

  it('refuses names that could escape a folder and unknown roles', async () => {
    const keys = KeyStore.open(':memory:');
    open.push(keys);
    await expect(keys.create({ space: '../x', agentId: 'a', role: 'worker' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(keys.create({ space: 's', agentId: 'a', role: 'admin' as never })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('puts the keys beside the database, or in the workspace for URLs', () => {
    expect(keysPathFor({ db: '/data/mem.db', workspace: '/w' })).toBe('/data/mem.db.keys.db');
    expect(keysPathFor({ db: 'postgres://u@h/db', workspace: '/w' })).toBe('/w/keys.db');
    expect(keysPathFor({ db: ':memory:', workspace: '/w' })).toBe(':memory:');
    expect(keysPathFor({ db: '/data/mem.db', workspace: '/w', keysDb: '/k.db' })).toBe('/k.db');
  });
});

describe('HTTP with API keys', () => {
  async function setup() {
    const keys = KeyStore.open(':memory:');
    const mk = async (space: string, agentId: string, role: 'lead' | 'worker') =>
      (await keys.create({ space, agentId, role })).key;
    const k = {
      a1: await mk('space-a', 'agent-1', 'worker'),
      a2: await mk('space-a', 'agent-2', 'worker'),
      lead: await mk('space-a', 'boss', 'lead'),
      b1: await mk('space-b', 'agent-1', 'worker'),
    };
    const s = await testServer({ keys });
    open.push(s, keys);
    return { s, k, keys };
  }

  it('requires a valid key: none or a bad one → 401; service routes stay public', async () => {
    const { s, k } = await setup();
    expect(s.auth).toBe('keys');
    const none = await call(s.url, 'POST', '/v1/memories/search', { body: { query: 'x' } });
    expect([none.status, none.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const bad = await call(s.url, 'GET', '/v1/stats', { key: `${k.a1}x` });
    expect(bad.status).toBe(401);
    const malformed = await call(s.url, 'GET', '/v1/stats', { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    const mcp = await call(s.url, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(mcp.status).toBe(401);
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/'])
      expect((await call(s.url, 'GET', path)).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/stats', { key: k.a1 })).body).toMatchObject({ space: 'space-a' });
  });

  it('lets the key, not the body, decide space, owner and lead rights', async () => {
    const { s, k } = await setup();
    // A worker writing a lead-only root → 403; the lead may.
    const worker = await call(s.url, 'POST', '/v1/memories', {
      key: k.a1,
      body: { content: 'We started as a two-person shop.', key: '/longterm/company-story' },
    });
    expect([worker.status, worker.body.code]).toEqual([403, 'FORBIDDEN_KEY']);
    const lead = await call(s.url, 'POST', '/v1/memories', {
      key: k.lead,
      body: { content: 'We started as a two-person shop.', key: '/longterm/company-story' },
    });
    expect(lead.status).toBe(201);
    // inject-learning: lead only; the learning belongs to the target agent at swarm scope.
    const learnW = await call(s.url, 'POST', '/v1/learnings', {
      key: k.a1,
      body: { agentId: 'agent-2', learning: 'Always run the migrations first.', category: 'best-practice' },
    });
    expect(learnW.status).toBe(403);
    const learnL = await call(s.url, 'POST', '/v1/learnings', {
      key: k.lead,
      body: { agentId: 'agent-2', learning: 'Always run the migrations first.', category: 'best-practice' },
    });
    expect(learnL.status).toBe(201);
    const got = await call(s.url, 'GET', `/v1/memories/${learnL.body.id}`, { key: k.a2 });
    expect(got.body).toMatchObject({
      agentId: 'agent-2',
      scope: 'swarm',
      tags: expect.arrayContaining(['best-practice', expect.stringMatching(/^injected-by:/)]),
    });
    // The body cannot name a space or an owner.
    const sneaky = await call(s.url, 'POST', '/v1/memories', { key: k.a1, body: { content: 'x', agentId: 'agent-2' } });
    expect(sneaky.status).toBe(400);
    const imported = await call(s.url, 'POST', '/v1/import', {
      key: k.a1,
      raw: '{"content":"as someone else","agentId":"agent-2"}\n',
    });
    expect(imported.body.errors[0]).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('never shows an agent another agent’s agent-scope memory, but shares swarm scope', async () => {
    const { s, k } = await setup();
    const mine = await call(s.url, 'POST', '/v1/memories', {
      key: k.a1,
      body: { content: 'My private note about the flaky payment test.', name: 'flaky payment test' },
    });
    const shared = await call(s.url, 'POST', '/v1/memories', {
      key: k.a1,
      body: { content: 'Shared: the payment sandbox resets nightly.', name: 'payment sandbox', scope: 'swarm' },
    });
    const search = await call(s.url, 'POST', '/v1/memories/search', {
      key: k.a2,
      body: { query: 'payment test sandbox' },
    });
    const ids = search.body.results.map((r: { id: string }) => r.id);
    expect(ids).toContain(shared.body.id);
    expect(ids).not.toContain(mine.body.id);
    const get = await call(s.url, 'GET', `/v1/memories/${mine.body.id}`, { key: k.a2 });
    expect([get.status, get.body.code]).toEqual([404, 'NOT_FOUND']);
    const list = await call(s.url, 'GET', '/v1/memories', { key: k.a2 });
    expect(list.body.memories.map((m: { id: string }) => m.id)).toEqual([shared.body.id]);
    const exported = await call(s.url, 'GET', '/v1/export', { key: k.a2 });
    expect(exported.text).not.toContain('private note');
    // Agent 2 may read the swarm memory but not change it (owner or lead only).
    const edit = await call(s.url, 'PATCH', `/v1/memories/${shared.body.id}`, {
      key: k.a2,
      body: { intent: 'x', content: 'changed' },
    });
    expect([edit.status, edit.body.code]).toEqual([403, 'FORBIDDEN']);
    const leadEdit = await call(s.url, 'PATCH', `/v1/memories/${shared.body.id}`, {
      key: k.lead,
      body: { intent: 'clarify', content: 'Shared: the payment sandbox resets every night at 02:00.' },
    });
    expect(leadEdit.status).toBe(200);
  });

  it('never lets a key of space A reach space B (404, not 403)', async () => {
    const { s, k } = await setup();
    const a = await call(s.url, 'POST', '/v1/memories', {
      key: k.a1,
      body: { content: 'Space A swarm fact about the quarterly audit.', scope: 'swarm' },
    });
    for (const [method, path, body] of [
      ['GET', `/v1/memories/${a.body.id}`, undefined],
      ['PATCH', `/v1/memories/${a.body.id}`, { intent: 'x', content: 'y' }],
      ['DELETE', `/v1/memories/${a.body.id}`, undefined],
      ['GET', `/v1/memories/${a.body.id}/versions`, undefined],
      ['POST', `/v1/memories/${a.body.id}/ratings`, { useful: false, taskId: 't' }],
    ] as const) {
      const r = await call(s.url, method, path, { key: k.b1, ...(body ? { body } : {}) });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    const search = await call(s.url, 'POST', '/v1/memories/search', { key: k.b1, body: { query: 'quarterly audit' } });
    expect(search.body.results).toEqual([]);
    expect((await call(s.url, 'GET', '/v1/stats', { key: k.b1 })).body).toMatchObject({
      space: 'space-b',
      documents: 0,
    });
    expect((await call(s.url, 'GET', `/v1/memories/${a.body.id}`, { key: k.a2 })).status).toBe(200);
  });

  it('started open runs on loopback as the default principal, and still honours a sent key', async () => {
    const keys = KeyStore.open(':memory:');
    const s = await testServer({ keys, open: true });
    open.push(s, keys);
    expect(s.auth).toBe('open');
    expect(s.describe()).toContain('without API keys');
    expect((await call(s.url, 'GET', '/v1/stats')).body.space).toBe('default');
    const { key } = await keys.create({ space: 'other', agentId: 'x', role: 'worker' });
    expect((await call(s.url, 'GET', '/v1/stats', { key })).body.space).toBe('other');
    expect((await call(s.url, 'GET', '/v1/stats', { key: `${key}zz` })).status).toBe(401);
    // The key ended open mode (test/exposure.test.ts has the rest).
    expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(401);
  });
});

describe('mem keys (CLI)', () => {
  it('creates (printing the key once), lists without secrets, and revokes', async () => {
    const db = join(dir, 'cli.db');
    const run = async (...args: string[]) => {
      const p = memProcess([...args, '--db', db]);
      return exec(p.command, p.args, { env: { ...process.env, MEM_EMBEDDER: 'hashing' } });
    };
    const created = JSON.parse(
      (await run('keys', 'create', '--space', 'acme', '--agent', 'coder', '--role', 'lead', '--json')).stdout,
    );
    expect(created.key).toMatch(/^mem_/);
    expect(created).toMatchObject({ space: 'acme', agentId: 'coder', role: 'lead' });
    const human = (await run('keys', 'create', '--space', 'acme', '--agent', 'tester', '--label', 'qa')).stdout;
    expect(human).toMatch(/^mem_[0-9a-f]{16}_/);
    expect(human).toContain('shown only this once');

    const listed = JSON.parse((await run('keys', 'list', '--json')).stdout);
    expect(listed.keys).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(created.key.split('_').slice(2).join('_'));
    const keys = KeyStore.open(`${db}.keys.db`);
    expect((await keys.verify(created.key))?.principal).toEqual({ space: 'acme', agentId: 'coder', role: 'lead' });
    keys.close();

    const revoked = JSON.parse((await run('keys', 'revoke', created.id, '--json')).stdout);
    expect(revoked).toEqual({ id: created.id, revoked: true });
    await expect(run('keys', 'revoke', created.id)).rejects.toMatchObject({ code: 1 });
    await expect(run('keys', 'rotate')).rejects.toMatchObject({ code: 2 });
  });
});
