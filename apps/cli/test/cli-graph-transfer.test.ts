/**
 * `mem export` / `mem import` carry the memory graph (docs/graph.md#export-and-import): a graph built on a real SQLite
 * file (two agents, both scopes, a user, merges, closed records, world times, evidence) is exported by the CLI and
 * imported into a fresh file, and reads back the same; a bad graph line refuses the file and writes nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@mem/core';
import { openStack, readSettings } from '@mem/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
const SPACE = 'acme';
const ana: Principal = { space: SPACE, agentId: 'ana', role: 'worker' };
const anaForU1: Principal = { ...ana, userId: 'u1' };
const bob: Principal = { space: SPACE, agentId: 'bob', role: 'worker' };
/** Who reads: [CLI flags, the names it looks up]. */
const READERS: [string[], string[]][] = [
  [
    ['--agent', 'ana'],
    ['Ada Lovelace', 'Countess of Lovelace', 'Analytical Engine', 'London'],
  ],
  [
    ['--agent', 'ana', '--user', 'u1'],
    ['User u1', 'Ada Lovelace'],
  ],
  [
    ['--agent', 'bob'],
    ['Charles Babbage', 'Analytical Engine', 'Temp Org'],
  ],
  [
    ['--agent', 'boss', '--role', 'lead'],
    ['Charles Babbage', 'Temp Org'],
  ],
];

const env = (db: string) => ({ MEM_DB: db, MEM_EMBEDDER: 'hashing', MEM_SPACE: SPACE });
const mem = (db: string, args: string[], stdin = '') => runCli(args, dir, env(db), stdin);
const asLead = ['--agent', 'boss', '--role', 'lead'];
const graphLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.includes('"type":"graph-'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Build the graph with the services of a stack on the file (as the CLI opens it). */
async function buildGraph(db: string): Promise<void> {
  const stack = await openStack(readSettings(env(db), {}, dir));
  try {
    const g = stack.graph!;
    await stack.knowledge.store(ana, { content: 'Ada wrote the notes on the engine.' });
    await g.createEntities(
      ana,
      {
        entities: [
          { name: 'Ada Lovelace', entityType: 'person', observations: ['Wrote the first program', 'Born in 1815'] },
          { name: 'Analytical Engine', entityType: 'machine', observations: ['Never finished'] },
        ],
      },
      { evidence: ['m1', 'm2'] },
    );
    await g.createRelations(
      ana,
      { relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }] },
      { validFrom: '1843-01-01T00:00:00.000Z', evidence: ['m2'] },
    );
    await g.createRelations(
      ana,
      { relations: [{ from: 'Ada Lovelace', to: 'London', relationType: 'lives_in' }] },
      { validFrom: '1835-07-08T00:00:00.000Z' },
    );
    await g.deleteRelations(
      ana,
      { relations: [{ from: 'Ada Lovelace', to: 'London', relationType: 'lives_in' }] },
      { validTo: '1852-11-27T00:00:00.000Z' },
    );
    await g.deleteObservations(ana, { deletions: [{ entityName: 'Ada Lovelace', observations: ['Born in 1815'] }] });
    await g.createEntities(
      ana,
      { entities: [{ name: 'Countess of Lovelace', entityType: 'person', observations: ['Mathematician'] }] },
      { similar: false, evidence: ['m3'] },
    );
    await g.merge(ana, { entity: 'Countess of Lovelace', into: 'Ada Lovelace' });
    await g.createEntities(
      anaForU1,
      { entities: [{ name: 'User u1', entityType: 'person', observations: ['Likes tea'] }] },
      { evidence: ['m4'] },
    );
    await g.createRelations(anaForU1, {
      relations: [{ from: 'User u1', to: 'Ada Lovelace', relationType: 'admires' }],
    });
    const swarm = { scope: 'swarm' as const, by: 'test-extractor@1' };
    await g.createEntities(
      bob,
      {
        entities: [
          { name: 'Charles Babbage', entityType: 'person', observations: ['Designed the engine'] },
          { name: 'Temp Org', entityType: 'organization', observations: [] },
        ],
      },
      swarm,
    );
    await g.createRelations(
      bob,
      { relations: [{ from: 'Charles Babbage', to: 'Analytical Engine', relationType: 'designed' }] },
      swarm,
    );
    await g.deleteEntities(bob, { entityNames: ['Temp Org'] });
    await g.addObservations(ana, { observations: [{ entityName: 'Charles Babbage', contents: ['Met Ada in 1833'] }] });
  } finally {
    await stack.close();
  }
}

/** What every reader sees of the graph: `read_graph` and the history of each name it looks up. */
async function views(db: string) {
  const out: Record<string, unknown> = {};
  for (const [flags, names] of READERS) {
    const who = flags.join(' ');
    const read = await mem(db, ['graph', 'read', '--json', ...flags]);
    expect(read.code, `${who}: ${read.stderr}`).toBe(0);
    out[`${who} read`] = read.json();
    for (const name of names) {
      const h = await mem(db, ['graph', 'history', name, '--json', ...flags]);
      expect(h.code, `${who} ${name}: ${h.stderr}`).toBe(0);
      out[`${who} history ${name}`] = h.json();
    }
  }
  return out;
}

let src: string;
let exported: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-graph-transfer-'));
  src = join(dir, 'src.db');
  await buildGraph(src);
  const r = await mem(src, ['export', ...asLead]);
  expect(r.code, r.stderr).toBe(0);
  exported = r.stdout;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mem export / mem import with the memory graph (SQLite)', () => {
  it('exports every graph record after the memories, and an import into a fresh file reads back the same', async () => {
    const lines = exported.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ content: 'Ada wrote the notes on the engine.', agentId: 'ana' });
    expect(JSON.parse(lines[0]!).type).toBeUndefined();
    const graph = graphLines(exported);
    expect(graph).toHaveLength(lines.length - 1);
    const count = (type: string) => graph.filter((l) => l.type === type).length;
    const entities = graph.filter((l) => l.type === 'graph-entity');
    const byName = (name: string) => entities.find((e) => e.name === name)!;
    expect(byName('Countess of Lovelace')).toMatchObject({ mergedInto: byName('Ada Lovelace').id });
    expect(byName('Ada Lovelace')).toMatchObject({ aliases: ['Countess of Lovelace'], evidence: ['m1', 'm2', 'm3'] });
    expect(byName('User u1')).toMatchObject({ userId: 'u1', agentId: 'ana', scope: 'agent' });
    expect(byName('Temp Org')).toMatchObject({ agentId: 'bob', scope: 'swarm', invalidatedAt: expect.any(String) });
    expect(graph.find((l) => l.relationType === 'lives_in')).toMatchObject({
      validFrom: '1835-07-08T00:00:00.000Z',
      validTo: '1852-11-27T00:00:00.000Z',
      invalidatedAt: expect.any(String),
    });
    expect(graph.some((l) => l.type === 'graph-log' && l.decision === 'merge' && l.by === 'graph-merge')).toBe(true);
    expect(graph.some((l) => l.type === 'graph-log' && l.by === 'test-extractor@1')).toBe(true);

    const before = await views(src);
    const dst = join(dir, 'dst.db');
    const file = join(dir, 'full.jsonl');
    writeFileSync(file, exported);
    const imported = await mem(dst, ['import', file, '--json', ...asLead]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json()).toMatchObject({
      imported: 1,
      skipped: 0,
      graph: {
        entities: count('graph-entity'),
        observations: count('graph-observation'),
        relations: count('graph-relation'),
        log: count('graph-log'),
        duplicates: 0,
      },
    });
    expect(count('graph-entity')).toBe(8);
    expect(await views(dst)).toEqual(before);
    const again = await mem(dst, ['export', ...asLead]);
    expect(graphLines(again.stdout)).toEqual(graph);
    // A worker exports what it sees: its own records and the swarm's, about no user.
    const bobs = graphLines((await mem(src, ['export', '--agent', 'bob'])).stdout);
    expect(bobs.filter((l) => l.type === 'graph-entity').map((e) => e.name)).toEqual([
      'Charles Babbage',
      'Temp Org',
      'Analytical Engine',
    ]);
    expect(bobs.filter((l) => l.type === 'graph-entity').every((e) => e.agentId === 'bob')).toBe(true);
  });

  it('leaves records the space holds already as they are, counting them', async () => {
    const dst = join(dir, 'twice.db');
    const file = join(dir, 'twice.jsonl');
    writeFileSync(file, exported);
    expect((await mem(dst, ['import', file, ...asLead])).code).toBe(0);
    const before = await views(dst);
    const graph = graphLines(exported);
    const ada = graph.find((l) => l.type === 'graph-entity' && l.name === 'Ada Lovelace')!;
    const renamed = exported
      .split('\n')
      .map((l) => (l === JSON.stringify(ada) ? JSON.stringify({ ...ada, name: 'Ada King' }) : l));
    expect(renamed.join('\n')).not.toBe(exported);
    writeFileSync(file, renamed.join('\n'));
    const r = await mem(dst, ['import', file, '--json', ...asLead]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      imported: 0,
      duplicates: 1,
      graph: { entities: 0, observations: 0, relations: 0, log: 0, duplicates: graph.length },
    });
    expect(await views(dst)).toEqual(before);
    expect((await mem(dst, ['graph', 'open', 'Ada King', '--json', '--agent', 'ana'])).json().entities).toEqual([]);
  });

  it('refuses a file with a bad graph line, naming its line and field, and writes nothing of it', async () => {
    const lines = exported.trim().split('\n');
    const at = (type: string, pick: (l: Record<string, unknown>) => boolean = () => true) =>
      lines.findIndex((l) => l.includes(`"type":"${type}"`) && pick(JSON.parse(l)));
    const changed = (i: number, over: Record<string, unknown>) =>
      lines.map((l, j) => (j === i ? JSON.stringify({ ...JSON.parse(l), ...over }) : l));
    const rel = at('graph-relation');
    const ent = at('graph-entity');
    const obs = at('graph-observation');
    const cases: [string, string[], string[], string][] = [
      [
        'a field of the wrong type',
        changed(rel, { validFrom: 42 }),
        asLead,
        `line ${rel + 1}: graph-relation.validFrom`,
      ],
      [
        'a time that is no time',
        changed(ent, { recordedAt: 'yesterday' }),
        asLead,
        `line ${ent + 1}: graph-entity.recordedAt`,
      ],
      ['an unknown field', changed(obs, { colour: 'red' }), asLead, `line ${obs + 1}: graph-observation.colour`],
      [
        'an unknown line type',
        [...lines, JSON.stringify({ type: 'graph-edge', id: 'x1' })],
        asLead,
        `line ${lines.length + 1}: type: unknown line type "graph-edge"`,
      ],
      [
        'an id given twice',
        [...lines, JSON.stringify({ ...JSON.parse(lines[ent]!), name: 'Someone Else' })],
        asLead,
        `line ${lines.length + 1}: graph-entity.id`,
      ],
      [
        'a reference to no record',
        changed(obs, { entityId: 'nosuchentity' }),
        asLead,
        `line ${obs + 1}: graph-observation.entityId`,
      ],
      [
        'a secret in an observation',
        changed(obs, { text: 'The key is AKIAIOSFODNN7EXAMPLE' }),
        asLead,
        `observation (line ${obs + 1}) contains a secret`,
      ],
      ['records of other agents, imported by a worker', lines, ['--agent', 'ana'], 'FORBIDDEN'],
    ];
    const dst = join(dir, 'refused.db');
    const empty = (await mem(dst, ['export', ...asLead])).stdout;
    expect(empty).toBe('');
    for (const [what, file, flags, message] of cases) {
      const path = join(dir, 'bad.jsonl');
      writeFileSync(path, `${file.join('\n')}\n`);
      const r = await mem(dst, ['import', path, ...flags]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(message);
      expect(r.stdout, what).toBe('');
      expect((await mem(dst, ['export', ...asLead])).stdout, what).toBe(empty);
    }
  });

  it('imports a file of memories only as before, the graph untouched', async () => {
    const dst = join(dir, 'memories.db');
    const file = join(dir, 'memories.jsonl');
    writeFileSync(file, `${JSON.stringify({ content: 'Only a memory.', type: 'note' })}\n`);
    const r = await mem(dst, ['import', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      imported: 1,
      skipped: 0,
      graph: { entities: 0, observations: 0, relations: 0, log: 0, duplicates: 0 },
    });
    const out = (await mem(dst, ['export'])).stdout.trim().split('\n');
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!).content).toBe('Only a memory.');
  });
});
