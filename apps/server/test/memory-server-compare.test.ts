/**
 * The drop-in for the MCP memory server: the same tool calls go to the official server's package
 * (@modelcontextprotocol/server-memory, over stdio on its own JSONL file) and to `mem mcp --profile memory-server`
 * (over stdio on a SQLite file), and the answers are compared — tools, argument schemas, results, refusals, and the
 * memory file, which `mem graph export` writes byte for byte as the official server does and `mem graph import` reads back.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { memProcess } from './helpers.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-memory-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const officialFile = join(dir, 'official.jsonl');
const db = join(dir, 'mem.db');
const env = { ...(process.env as Record<string, string>), MEM_EMBEDDER: 'hashing', MEM_WORKSPACE_DIR: join(dir, 'ws') };

async function connect(command: string, args: string[], extra: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, env: { ...env, ...extra }, stderr: 'pipe' });
  const client = new Client({ name: 'compare', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

type Result = { isError?: boolean; structuredContent?: unknown; content: { type: string; text?: string }[] };
const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as Result;

/** The calls a client makes, in order: writes, reads, duplicates, deletes. */
const SCRIPT: [string, Record<string, unknown>][] = [
  [
    'create_entities',
    {
      entities: [
        { name: 'Ada Lovelace', entityType: 'person', observations: ['Wrote the first program', 'Born 1815'] },
        { name: 'Charles Babbage', entityType: 'person', observations: ['Designed the Analytical Engine'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: [] },
      ],
    },
  ],
  ['create_entities', { entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: [] }] }],
  [
    'create_relations',
    {
      relations: [
        { from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' },
        { from: 'Charles Babbage', to: 'Analytical Engine', relationType: 'designed' },
        { from: 'Ada Lovelace', to: 'Charles Babbage', relationType: 'corresponded_with' },
      ],
    },
  ],
  ['create_relations', { relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }] }],
  [
    'add_observations',
    { observations: [{ entityName: 'Charles Babbage', contents: ['Born 1791', 'Designed the Analytical Engine'] }] },
  ],
  ['open_nodes', { names: ['Ada Lovelace', 'Nobody'] }],
  ['search_nodes', { query: 'Analytical' }],
  ['search_nodes', { query: '1791' }],
  ['read_graph', {}],
  ['delete_observations', { deletions: [{ entityName: 'Ada Lovelace', observations: ['Born 1815'] }] }],
  [
    'delete_relations',
    { relations: [{ from: 'Ada Lovelace', to: 'Charles Babbage', relationType: 'corresponded_with' }] },
  ],
  ['delete_entities', { entityNames: ['Charles Babbage'] }],
  ['read_graph', {}],
];

/** A graph answer with its lists sorted (search ranks where the official server keeps file order). */
const sorted = (v: unknown) => {
  const g = v as { entities?: { name: string }[]; relations?: { from: string; to: string; relationType: string }[] };
  if (!g || !Array.isArray(g.entities) || !Array.isArray(g.relations)) return v;
  const key = (r: { from: string; to: string; relationType: string }) => `${r.from}|${r.relationType}|${r.to}`;
  return {
    entities: [...g.entities].sort((a, b) => a.name.localeCompare(b.name)),
    relations: [...g.relations].sort((a, b) => key(a).localeCompare(key(b))),
  };
};

describe('mem mcp --profile memory-server against the official MCP memory server', () => {
  it('offers the same nine tools with the same arguments, answers the same, and writes the same memory file', async () => {
    const official = await connect(
      process.execPath,
      [createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js')],
      { MEMORY_FILE_PATH: officialFile },
    );
    const p = memProcess(['mcp', '--profile', 'memory-server', '--db', db, '--embedder', 'hashing']);
    const mem = await connect(p.command, p.args);
    try {
      const theirs = (await official.listTools()).tools;
      const ours = (await mem.listTools()).tools;
      expect(ours.map((t) => t.name)).toEqual(theirs.map((t) => t.name));
      for (const t of theirs) {
        const o = ours.find((x) => x.name === t.name)!;
        const props = (s: unknown) => (s as { properties?: Record<string, unknown> }).properties ?? {};
        expect(Object.keys(props(o.inputSchema)).sort(), t.name).toEqual(Object.keys(props(t.inputSchema)).sort());
        expect((o.inputSchema as { required?: string[] }).required ?? [], t.name).toEqual(
          (t.inputSchema as { required?: string[] }).required ?? [],
        );
        expect(o.annotations?.readOnlyHint, t.name).toBe(t.annotations?.readOnlyHint);
      }

      for (const [name, args] of SCRIPT) {
        const [a, b] = [await call(official, name, args), await call(mem, name, args)];
        expect(!!b.isError, `${name} ${JSON.stringify(args)}`).toBe(!!a.isError);
        expect(sorted(b.structuredContent), `${name} ${JSON.stringify(args)}`).toEqual(sorted(a.structuredContent));
      }
      // An unknown entity is refused by both, and mem's refusal says what to do.
      const [a, b] = [
        await call(official, 'add_observations', { observations: [{ entityName: 'Nobody', contents: ['x'] }] }),
        await call(mem, 'add_observations', { observations: [{ entityName: 'Nobody', contents: ['x'] }] }),
      ];
      expect(a.isError).toBe(true);
      expect(b.isError).toBe(true);
      expect(b.content[0]!.text).toMatch(/^NOT_FOUND: Entity with name Nobody not found: create it first/);
    } finally {
      await official.close();
      await mem.close();
    }

    // The memory file: mem's export is the official server's file, byte for byte, and imports back the same.
    const memCli = async (...args: string[]) => {
      const q = memProcess([...args, '--embedder', 'hashing']);
      return (await exec(q.command, q.args, { env, cwd: dir })).stdout;
    };
    const file = readFileSync(officialFile, 'utf8');
    expect(await memCli('graph', 'export', '--db', db)).toBe(`${file}\n`);
    const fresh = join(dir, 'fresh.db');
    await memCli('graph', 'import', officialFile, '--db', fresh);
    expect(await memCli('graph', 'export', '--db', fresh)).toBe(`${file}\n`);
  });
});
