/**
 * docs/mcp.md's configuration for a clone, started as written: the JSON block that names `tooling/mem`, with this
 * clone's path and a temporary database put in, launched over stdio the way an MCP client launches it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mem-mcp-clone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The documented server entry whose command is the clone's launcher. */
function documented(): { command: string; args: string[] } {
  const doc = readFileSync(join(repo, 'docs', 'mcp.md'), 'utf8');
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);
  for (const b of blocks) {
    const entry = (b as { mcpServers?: Record<string, { command?: string; args?: string[] }> }).mcpServers?.mem;
    if (entry?.command?.endsWith('/tooling/mem')) return { command: entry.command, args: entry.args ?? [] };
  }
  throw new Error('docs/mcp.md has no configuration block whose command is …/tooling/mem');
}

describe('the documented MCP configuration for a clone', () => {
  it('starts as written and serves the tools: store, then search finds it', async () => {
    const { command, args } = documented();
    const db = join(dir, 'mem.db');
    const transport = new StdioClientTransport({
      command: command.replace('/path/to/mem', repo),
      args: args.map((a) => (a === '/path/to/.mem/mem.db' ? db : a)),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'docs-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('memory-store');
      expect(tools).toContain('memory-search');
      await client.callTool({
        name: 'memory-store',
        arguments: { key: '/longterm/facts/venue/choice', content: 'The offsite venue is the Lisbon harbour hall.' },
      });
      const found = await client.callTool({ name: 'memory-search', arguments: { query: 'offsite venue' } });
      expect(JSON.stringify(found.content)).toContain('Lisbon harbour hall');
    } finally {
      await client.close();
    }
  }, 120_000);
});
