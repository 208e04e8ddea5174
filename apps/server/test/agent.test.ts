import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { agentStack, call, testServer } from './helpers.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function setup() {
  const keys = KeyStore.open(':memory:');
  const k = {
    coder: (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key,
    tester: (await keys.create({ space: 'acme', agentId: 'tester', role: 'worker' })).key,
    lead: (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key,
    other: (await keys.create({ space: 'globex', agentId: 'coder', role: 'lead' })).key,
  };
  const s = await testServer({ keys, stack: agentStack() });
  open.push(s, keys);
  return { s, k };
}

describe('notebooks over HTTP', () => {
  it('writes, reads, lists, searches, injects and deletes files of an agent', async () => {
    const { s, k } = await setup();
    const base = '/v1/agents/coder/notebook';
    const created = await call(s.url, 'POST', base, {
      key: k.coder,
      body: { content: '- Deploys happen on Tuesdays.' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ file: 'MEMORY.md', status: 'created' });
    const appended = await call(s.url, 'POST', base, { key: k.coder, body: { content: '- Standup at 10:00.' } });
    expect(appended.body.status).toBe('appended');
    const updated = await call(s.url, 'POST', base, {
      key: k.coder,
      body: { content: '- Standup at 10:30.', oldText: '- Standup at 10:00.' },
    });
    expect([updated.status, updated.body.status]).toEqual([200, 'updated']);
    const ambiguous = await call(s.url, 'POST', base, { key: k.coder, body: { content: 'x', oldText: 'not there' } });
    expect(ambiguous.status).toBe(400);
    await call(s.url, 'POST', base, {
      key: k.coder,
      body: { content: '# Q3\n- ship search', file: 'plans/q3-roadmap' },
    });

    const read = await call(s.url, 'GET', `${base}/file`, { key: k.coder });
    expect(read.body.content).toContain('Standup at 10:30.');
    const plan = await call(s.url, 'GET', `${base}/file?file=plans/q3-roadmap.md`, { key: k.coder });
    expect(plan.body).toMatchObject({ file: 'plans/q3-roadmap.md', content: expect.stringContaining('ship search') });
    const list = await call(s.url, 'GET', base, { key: k.coder });
    expect(list.body.files.map((f: { file: string }) => f.file).sort()).toEqual(['MEMORY.md', 'plans/q3-roadmap.md']);
    const search = await call(s.url, 'POST', `${base}/search`, { key: k.coder, body: { query: 'roadmap' } });
    expect(search.body.results[0].file).toBe('plans/q3-roadmap.md');
    const inject = await call(s.url, 'GET', `${base}/inject`, { key: k.coder });
    expect(inject.body.text).toContain('<memory>');
    expect(inject.body.text).toContain('Deploys happen on Tuesdays.');

    const outside = await call(s.url, 'POST', base, { key: k.coder, body: { content: 'x', file: '../../etc/passwd' } });
    expect(outside.status).toBe(400);
    const main = await call(s.url, 'DELETE', `${base}/file?file=MEMORY.md`, { key: k.coder });
    expect([main.status, main.body.code]).toEqual([403, 'FORBIDDEN']);
    const del = await call(s.url, 'DELETE', `${base}/file?file=plans/q3-roadmap.md`, { key: k.coder });
    expect(del.body).toEqual({ file: 'plans/q3-roadmap.md', deleted: true });
  });

  it('keeps notebooks per agent and per space: workers only their own, leads any of their space', async () => {
    const { s, k } = await setup();
    await call(s.url, 'POST', '/v1/agents/coder/notebook', { key: k.coder, body: { content: 'coder private line' } });
    const peer = await call(s.url, 'GET', '/v1/agents/coder/notebook/file', { key: k.tester });
    // Another agent's notebook is private: 404, never 403 (a worker does not learn which agents have data).
    expect([peer.status, peer.body.code]).toEqual([404, 'NOT_FOUND']);
    const lead = await call(s.url, 'GET', '/v1/agents/coder/notebook/file', { key: k.lead });
    expect(lead.body.content).toContain('coder private line');
    // Same agent name, other space: a different, empty notebook.
    const otherSpace = await call(s.url, 'GET', '/v1/agents/coder/notebook/file', { key: k.other });
    expect(otherSpace.body.content).not.toContain('coder private line');
    const badName = await call(s.url, 'GET', '/v1/agents/..%2Fx/notebook', { key: k.lead });
    expect(badName.status).toBe(400);
  });
});

describe('notebooks narrowed to a user or topic over HTTP', () => {
  it('keeps a user and a topic notebook apart from the agent notebook, through body and query', async () => {
    const { s, k } = await setup();
    const base = '/v1/agents/coder/notebook';
    await call(s.url, 'POST', base, { key: k.coder, body: { content: 'agent line' } });
    const ada = await call(s.url, 'POST', base, { key: k.coder, body: { content: 'Ada prefers CSV.', user: 'ada' } });
    expect([ada.status, ada.body.status]).toEqual([201, 'created']);
    await call(s.url, 'POST', base, {
      key: k.coder,
      body: { content: 'Billing topic.', user: 'ada', topic: 'billing' },
    });

    const agentOnly = await call(s.url, 'GET', `${base}/file`, { key: k.coder });
    expect(agentOnly.body.content).toContain('agent line');
    expect(agentOnly.body.content).not.toContain('Ada prefers');
    const user = await call(s.url, 'GET', `${base}/file?user=ada`, { key: k.coder });
    expect(user.body.content).toContain('Ada prefers CSV.');
    expect(user.body.content).not.toContain('Billing topic.');
    const both = await call(s.url, 'GET', `${base}/inject?user=ada&topic=billing`, { key: k.coder });
    expect(both.body.text).toContain('Billing topic.');
    const hits = await call(s.url, 'POST', `${base}/search`, { key: k.coder, body: { query: 'CSV', user: 'ada' } });
    expect(hits.body.results[0].file).toBe('MEMORY.md');
    const listed = await call(s.url, 'GET', `${base}?user=nobody`, { key: k.coder });
    expect(listed.body.files).toEqual([]);

    // A user that is not a name is refused, and nothing is written.
    const bad = await call(s.url, 'POST', base, { key: k.coder, body: { content: 'x', user: '../ada' } });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(bad.body.message).toMatch(/user/);
    const unknown = await call(s.url, 'GET', `${base}/file?person=ada`, { key: k.coder });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'INVALID_INPUT']);
  });
});

describe('conversations over HTTP', () => {
  it('appends, shows, compacts into an archive, and reads archives', async () => {
    const { s, k } = await setup();
    const base = '/v1/agents/coder/conversation';
    for (const [role, content] of [
      ['user', 'Please rename the billing module.'],
      ['assistant', 'Renamed billing to invoicing.'],
    ]) {
      const r = await call(s.url, 'POST', `${base}/messages`, { key: k.coder, body: { role, content } });
      expect(r.status).toBe(201);
      expect(r.body.message).toMatchObject({ role, content });
      expect(r.body).toMatchObject({ agent: 'coder', needsCompression: false });
      expect(r.body.tokens).toBeGreaterThan(0);
    }
    const shown = await call(s.url, 'GET', base, { key: k.coder });
    expect(shown.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'Please rename the billing module.',
      'Renamed billing to invoicing.',
    ]);
    const compacted = await call(s.url, 'POST', `${base}/compact`, {
      key: k.coder,
      body: { summary: 'Billing is now invoicing.' },
    });
    expect(compacted.body).toMatchObject({ status: 'compacted' });
    const archives = await call(s.url, 'GET', `${base}/archives`, { key: k.coder });
    expect(archives.body.archives).toHaveLength(1);
    const id = archives.body.archives[0].id;
    const archived = await call(s.url, 'GET', `${base}/archives/${id}`, { key: k.coder });
    expect(archived.body.messages.map((m: { content: string }) => m.content)).toContain(
      'Renamed billing to invoicing.',
    );
    const after = await call(s.url, 'GET', base, { key: k.coder });
    expect(JSON.stringify(after.body.messages)).toContain('Billing is now invoicing.');
    const traversal = await call(s.url, 'GET', `${base}/archives/..%2F..%2Fsecret`, { key: k.coder });
    expect(traversal.status).toBe(400);
    expect((await call(s.url, 'GET', '/v1/conversations', { key: k.lead })).body.agents).toEqual(['coder']);
    expect((await call(s.url, 'GET', '/v1/conversations', { key: k.tester })).body.agents).toEqual([]);
    expect((await call(s.url, 'GET', base, { key: k.tester })).status).toBe(404);
  });
});

describe('notebook over MCP', () => {
  it('offers write_memory, read_memory, delete_memory, search_memory and the notebook block as prompt and resource', async () => {
    const { s, k } = await setup();
    const client = new Client({ name: 'nb', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.coder}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of ['write_memory', 'read_memory', 'delete_memory', 'search_memory', 'list_memory'])
        expect(names).toContain(n);
      const w = (await client.callTool({
        name: 'write_memory',
        arguments: { content: '- The API gateway caches for 60 s.' },
      })) as any;
      expect(w.structuredContent).toMatchObject({ file: 'MEMORY.md', status: 'created' });
      const r = (await client.callTool({ name: 'read_memory', arguments: {} })) as any;
      expect(r.structuredContent.content).toContain('caches for 60 s');
      const bad = (await client.callTool({ name: 'delete_memory', arguments: { file: 'MEMORY.md' } })) as any;
      expect(bad.isError).toBe(true);
      const prompt = await client.getPrompt({ name: 'notebook' });
      expect(JSON.stringify(prompt.messages)).toContain('caches for 60 s');
      const resource = await client.readResource({ uri: 'mem://notebook' });
      expect(JSON.stringify(resource.contents)).toContain('<memory>');
      // The HTTP API sees the same notebook for the same key.
      const viaHttp = await call(s.url, 'GET', '/v1/agents/coder/notebook/file', { key: k.coder });
      expect(viaHttp.body.content).toContain('caches for 60 s');
    } finally {
      await client.close();
    }
  });
});
