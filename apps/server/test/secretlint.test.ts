import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder } from '@mem/core';
import { fakeCredentials } from '@mem/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/server.js';
import { startDefaultServer } from '../src/start.js';
import { call } from './helpers.js';

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(secretScanner?: false): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-secretlint-'));
  dirs.push(dir);
  const server = await startDefaultServer({
    db: join(dir, 'mem.db'),
    workspace: dir,
    port: 0,
    open: true,
    embedder: createHashingEmbedder(),
    ...(secretScanner === false ? { secretScanner } : {}),
  });
  servers.push(server);
  return server.url;
}

describe("the default server stack runs secretlint after mem's own rules", () => {
  it("refuses a store holding a credential only secretlint knows, like mem's rules (400 SECRET_DETECTED), and writes nothing", async () => {
    const base = await start();
    const creds = fakeCredentials();
    for (const [name, cred] of Object.entries(creds)) {
      const r = await call(base, 'POST', '/v1/memories', {
        body: { content: `The ${name} login for CI is ${cred} now.` },
      });
      expect([r.status, r.body.code], name).toEqual([400, 'SECRET_DETECTED']);
      expect(r.body.message).toMatch(/found by secretlint\) at line 1, column \d+/);
      expect(JSON.stringify(r.body)).not.toContain(cred);
    }
    // mem's own rules answer the same way (the same code, status and message shape, without the scanner's name).
    const own = await call(base, 'POST', '/v1/memories', {
      body: { content: `deploy with ${['AKIA', 'IOSFODNN7EXAMPLE'].join('')} please` },
    });
    expect([own.status, own.body.code]).toEqual([400, 'SECRET_DETECTED']);
    expect(own.body.message).not.toContain('found by');
    const tagged = await call(base, 'POST', '/v1/memories', {
      body: { content: 'CI logs in to the registry nightly.', tags: ['ci', creds.docker] },
    });
    expect([tagged.status, tagged.body.code]).toEqual([400, 'SECRET_DETECTED']);
    expect(tagged.body.message).toContain('the tag contains');
    expect((await call(base, 'GET', '/v1/stats')).body).toMatchObject({ documents: 0 });
  });

  it('refuses it in a goal and a session summary too, writing nothing', async () => {
    const base = await start();
    const cred = fakeCredentials().grafana;
    const goal = await call(base, 'PUT', '/v1/goals', { body: { user: 'ada', goal: `rotate the key ${cred}` } });
    expect([goal.status, goal.body.code]).toEqual([400, 'SECRET_DETECTED']);
    expect(goal.body.message).toContain('found by secretlint');
    expect((await call(base, 'GET', '/v1/goals?user=ada')).body.goal ?? null).toBeNull();
    const summary = await call(base, 'PUT', '/v1/agents/main/sessions/s1/summary', {
      body: { summary: `We set up Grafana with ${cred}.`, messagesCovered: 4 },
    });
    expect([summary.status, summary.body.code]).toEqual([400, 'SECRET_DETECTED']);
    const stored = await call(base, 'GET', '/v1/agents/main/sessions/s1/summary');
    expect(JSON.stringify(stored.body)).not.toContain(cred);
    expect(stored.body.summary ?? null).toBeNull();
  });

  it('redacts such a credential in a transcript turn instead of refusing it', async () => {
    const base = await start();
    const cred = fakeCredentials().notion;
    const r = await call(base, 'POST', '/v1/agents/main/conversation/messages', {
      body: { role: 'user', content: `the notion token is ${cred}` },
    });
    expect(r.status).toBe(201);
    expect(r.body.message.content).toMatch(/^the notion token is \[REDACTED:secretlint-notion[^\]]*\]$/);
    const convo = await call(base, 'GET', '/v1/agents/main/conversation');
    expect(JSON.stringify(convo.body)).not.toContain(cred);
  });

  it("with the scanner switched off (MEM_SECRETLINT=off), only mem's own rules run", async () => {
    const base = await start(false);
    const r = await call(base, 'POST', '/v1/memories', { body: { content: `uses ${fakeCredentials().docker}` } });
    expect(r.status).toBe(201);
  });
});
