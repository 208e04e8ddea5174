/**
 * Issue 15, point 1: a web page must not reach the server, open mode or not. First the attacks a page can make
 * (a `text/plain` "simple" POST, a DNS-rebound Host, a foreign Origin through MCP), then open mode as a deliberate,
 * loopback-only flag that ends when a key exists.
 */
import { describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { call, memoryStack, testServer, worker } from './helpers.js';
import { MCP_HEADERS, rawRequest, toolCall } from './raw-http.js';

const documents = async (base: string) => (await call(base, 'GET', '/v1/stats')).body.documents as number;

describe('attacks from a web page on an open server', () => {
  it('refuses a text/plain POST to /v1/memories and /v1/import with 415, storing nothing', async () => {
    const s = await testServer();
    try {
      const store = await call(s.url, 'POST', '/v1/memories', {
        raw: JSON.stringify({ content: 'Planted by a web page.' }),
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
      expect([store.status, store.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(store.body.message).toContain('application/json');
      const form = await call(s.url, 'POST', '/v1/memories', {
        raw: 'content=planted',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
      const imported = await call(s.url, 'POST', '/v1/import', {
        raw: '{"content":"Planted through the import."}\n',
        headers: { 'content-type': 'text/plain' },
      });
      expect([imported.status, imported.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(imported.body.message).toContain('application/x-ndjson');
      expect(await documents(s.url)).toBe(0);
      // The right types still work.
      expect((await call(s.url, 'POST', '/v1/memories', { body: { content: 'A real note.' } })).status).toBe(201);
      const good = await call(s.url, 'POST', '/v1/import', {
        raw: '{"content":"An imported note."}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect([good.status, good.body.imported]).toEqual([200, 1]);
    } finally {
      await s.close();
    }
  });

  it('refuses a DNS-rebound Host reading /v1/export (and every other route)', async () => {
    const s = await testServer();
    try {
      await call(s.url, 'POST', '/v1/memories', { body: { content: 'Private roadmap item.' } });
      const port = new URL(s.url).port;
      for (const path of ['/v1/export', '/v1/stats', '/', '/openapi.json', '/healthz']) {
        const r = await rawRequest(s.url, 'GET', path, { headers: { host: `rebind.attacker.example:${port}` } });
        expect([path, r.status, r.body.code]).toEqual([path, 403, 'FORBIDDEN_HOST']);
        expect(r.text).not.toContain('roadmap');
      }
      const mcp = await rawRequest(s.url, 'POST', '/mcp', {
        headers: { ...MCP_HEADERS, host: `rebind.attacker.example:${port}` },
        body: JSON.stringify(toolCall(1, 'memory-search', { query: 'roadmap' })),
      });
      expect(mcp.status).toBe(403);
      // Loopback names pass.
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
        const r = await rawRequest(s.url, 'GET', '/v1/export', { headers: { host } });
        expect([host, r.status]).toEqual([host, 200]);
        expect(r.text).toContain('roadmap');
      }
    } finally {
      await s.close();
    }
  });

  it('answers to a Host named with allowedHosts (--allowed-hosts)', async () => {
    const s = await testServer({ allowedHosts: ['mem.internal'] });
    try {
      const r = await rawRequest(s.url, 'GET', '/v1/stats', { headers: { host: 'MEM.internal:80' } });
      expect(r.status).toBe(200);
      const other = await rawRequest(s.url, 'GET', '/v1/stats', { headers: { host: 'mem.internal.evil' } });
      expect(other.status).toBe(403);
    } finally {
      await s.close();
    }
  });

  it('refuses a foreign Origin writing through /mcp and the API, and lets the inspector’s own origin in', async () => {
    const s = await testServer();
    try {
      const write = JSON.stringify(toolCall(1, 'memory-store', { content: 'Written by evil.example.' }));
      for (const origin of ['https://evil.example', 'null', `http://127.0.0.1.evil.example`, 'http://localhost:1']) {
        const r = await rawRequest(s.url, 'POST', '/mcp', { headers: { ...MCP_HEADERS, origin }, body: write });
        expect([origin, r.status, r.body.code]).toEqual([origin, 403, 'FORBIDDEN_ORIGIN']);
        expect(r.body.message).toContain('--allowed-origins');
      }
      const api = await rawRequest(s.url, 'POST', '/v1/memories', {
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: JSON.stringify({ content: 'Written by evil.example.' }),
      });
      expect(api.status).toBe(403);
      expect(await documents(s.url)).toBe(0);

      // The inspector, served from the server itself, sends its own origin.
      const own = await rawRequest(s.url, 'POST', '/mcp', { headers: { ...MCP_HEADERS, origin: s.url }, body: write });
      expect(own.status).toBe(200);
      expect(own.body.result.isError).toBeFalsy();
      expect(await documents(s.url)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('allows an Origin named with allowedOrigins (--allowed-origins)', async () => {
    const s = await testServer({ allowedOrigins: ['https://app.example.com'] });
    try {
      const r = await rawRequest(s.url, 'GET', '/v1/stats', { headers: { origin: 'https://app.example.com' } });
      expect(r.status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('requires JSON on /mcp', async () => {
    const s = await testServer();
    try {
      const r = await rawRequest(s.url, 'POST', '/mcp', {
        headers: { 'content-type': 'text/plain', accept: MCP_HEADERS.accept },
        body: JSON.stringify(toolCall(1, 'memory-store', { content: 'x' })),
      });
      expect([r.status, r.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    } finally {
      await s.close();
    }
  });
});

describe('open mode is a deliberate flag', () => {
  it('requires keys when not started open, even before the first key exists', async () => {
    const keys = KeyStore.open(':memory:');
    const s = await testServer({ keys, open: false });
    try {
      expect(s.auth).toBe('keys');
      expect(s.describe()).toContain('none exists yet');
      const r = await call(s.url, 'GET', '/v1/stats');
      expect([r.status, r.body.code]).toEqual([401, 'UNAUTHORIZED']);
    } finally {
      await s.close();
      keys.close();
    }
  });

  it('ends the moment a key is created, and revoking it does not re-open', async () => {
    const keys = KeyStore.open(':memory:');
    const s = await testServer({ keys, open: true });
    try {
      expect(s.auth).toBe('open');
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(200);
      const { key, info } = await keys.create({ space: 'default', agentId: 'main', role: 'worker' });
      const after = await call(s.url, 'GET', '/v1/stats');
      expect([after.status, after.body.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(s.auth).toBe('keys');
      expect((await call(s.url, 'GET', '/v1/stats', { key })).status).toBe(200);
      keys.revoke(info.id);
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(401);
      expect(s.auth).toBe('keys');
    } finally {
      await s.close();
      keys.close();
    }
  });

  it('sees a key created by another process (another connection to the key file)', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'mem-open-'));
    const keys = KeyStore.open(join(dir, 'keys.db'));
    const s = await testServer({ keys, open: true });
    try {
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(200);
      const cli = KeyStore.open(join(dir, 'keys.db'));
      await cli.create({ space: 'default', agentId: 'main', role: 'worker' });
      cli.close();
      expect((await call(s.url, 'GET', '/v1/stats')).status).toBe(401);
    } finally {
      await s.close();
      keys.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start open when a key exists, or beside requireAuth', async () => {
    const keys = KeyStore.open(':memory:');
    await keys.create({ space: 'default', agentId: 'main', role: 'worker' });
    try {
      await expect(
        startServer({
          stack: memoryStack(),
          keys,
          port: 0,
          defaultPrincipal: worker,
          open: true,
          logger: silentLogger,
        }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('mem keys revoke') });
      await expect(
        startServer({
          stack: memoryStack(),
          port: 0,
          defaultPrincipal: worker,
          open: true,
          requireAuth: true,
          logger: silentLogger,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(
        startServer({
          stack: memoryStack(),
          port: 0,
          defaultPrincipal: worker,
          open: true,
          allowedHosts: ['*'],
          logger: silentLogger,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('any web page') });
    } finally {
      keys.close();
    }
  });
});
