import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { OPEN_VALIDITY, type SearchFilter } from '@mem/core/adapter';
import { keywordHits, readTreeText } from '@mem/testkit';
import { formationEntry as entry, memoryRecord } from '@mem/testkit/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { rowsToTable } from './arrow-rows.js';
import { createLanceStore, filterPredicate, type LanceKnowledgeStore } from './index.js';
import { arrow, chunkSchema, metaSchema, recordToRow, SCHEMA_VERSION, VALIDITY_COLUMNS } from './schema.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const NOW = '2026-03-10T12:00:00.000Z';

const dirs: string[] = [];
const stores: LanceKnowledgeStore[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-formation-'));
  dirs.push(dir);
  return dir;
}

function open(uri: string): LanceKnowledgeStore {
  const store = createLanceStore({ uri });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const filter = (over: Partial<SearchFilter> = {}): SearchFilter => ({
  space: 'acme',
  viewerAgentId: 'alice',
  now: NOW,
  ...over,
});

const isValidity = (name: string) => (VALIDITY_COLUMNS as readonly string[]).includes(name);

describe('formation on LanceDB', () => {
  it('filters by user and world time in one predicate, user text quoted', () => {
    expect(filterPredicate(filter())).toContain('user_id IS NULL AND (valid_to IS NULL OR valid_to > ');
    const where = filterPredicate(filter({ userId: "ann' OR '1'='1", asOf: '2026-03-04T00:00:00.000Z' }));
    expect(where).toContain("(user_id IS NULL OR user_id = 'ann'' OR ''1''=''1')");
    expect(where).toContain("(valid_to IS NULL OR valid_to > '2026-03-04T00:00:00.000Z')");
    expect(where).toContain("coalesce(valid_from, created_at) <= '2026-03-04T00:00:00.000Z'");
    const history = filterPredicate(filter({ history: true, asOf: '2026-03-04T00:00:00.000Z' }));
    expect(history).not.toContain('valid_to');
    expect(history).toContain('user_id IS NULL');
  });

  it('opens a database written before the validity columns: two processes migrate it once, old rows read back open', async () => {
    const uri = tempDir();
    // The chunks table as schema version 1 wrote it: no validity column, one memory; the meta table says 1.
    const old = memoryRecord({ content: 'The payments runbook: restart the workers.', scope: 'swarm' }, 'old');
    const oldSchema = new arrow.Schema(chunkSchema().fields.filter((f) => !isValidity(f.name)));
    const base = { accessCount: 0, lastAccessedAt: null, alpha: 1, beta: 1, version: 1 };
    const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 });
    const chunks = await conn.createTable('knowledge_chunks', rowsToTable(oldSchema, [recordToRow(old, [], base)]));
    await conn.createTable('knowledge_meta', rowsToTable(metaSchema(), [{ key: 'schema.version', value: '1' }]));
    expect((await chunks.schema()).fields.some((f) => isValidity(f.name))).toBe(false);

    const child = join(here, '..', 'test', 'migrate-child.ts');
    const runChild = () =>
      run(process.execPath, ['--conditions=dev-source', '--import', 'tsx', child, uri, old.docId], {
        cwd: join(here, '..'),
        timeout: 90_000,
      });
    const outputs = await Promise.all([runChild(), runChild()]);
    for (const out of outputs) expect(JSON.parse(out.stdout)).toEqual({ found: true, ...OPEN_VALIDITY });

    // Every validity column once, the version recorded, the decision log there.
    const names = (await chunks.schema()).fields.map((f) => f.name);
    expect(names.filter(isValidity).sort()).toEqual([...VALIDITY_COLUMNS].sort());
    const meta = await conn.openTable('knowledge_meta');
    expect(await meta.query().where("key = 'schema.version'").toArray()).toMatchObject([
      { value: String(SCHEMA_VERSION) },
    ]);
    expect(await conn.tableNames()).toContain('knowledge_formation_log');
    chunks.close();
    meta.close();
    conn.close();

    const store = open(uri);
    expect((await store.getDocument('acme', old.docId))[0]).toMatchObject({ ...OPEN_VALIDITY, content: old.content });
    // The old memory is current and about no user: every search sees it.
    const hits = async (f: SearchFilter) =>
      (await keywordHits(store, { filter: f, terms: ['payments', 'runbook'], limit: 5 })).map((h) => h.id);
    expect(await hits(filter())).toEqual([old.id]);
    expect(await hits(filter({ userId: 'ann', asOf: '2026-03-05T00:00:00.000Z' }))).toEqual([old.id]);
    // It can be closed like a formed one, and its log line kept.
    const next = memoryRecord({ content: 'The payments runbook: drain, then restart.', scope: 'swarm' }, 'new');
    await store.form('acme', {
      insert: [[next]],
      close: [{ docId: old.docId, validTo: NOW, invalidatedAt: NOW, supersededBy: next.docId }],
      log: [entry(next.docId, { decision: 'update', previousId: old.docId })],
    });
    expect((await store.getDocument('acme', old.docId))[0]).toMatchObject({
      validTo: NOW,
      invalidatedAt: NOW,
      supersededBy: next.docId,
    });
    expect(await hits(filter())).toEqual([next.id]);
    expect((await hits(filter({ history: true }))).sort()).toEqual([next.id, old.id].sort());
    expect((await store.formationLog('acme', [next.docId])).map((e) => e.previousId)).toEqual([old.docId]);
  }, 120_000);

  it('undoes the insert and the close of a formation whose log write fails', async () => {
    const store = open(tempDir());
    const old = memoryRecord({ content: 'The user lives in Berlin.', validTo: '2026-06-01T00:00:00.000Z' }, 'frm');
    await store.insertDocument([old]);
    const next = memoryRecord({ content: 'The user lives in Munich.', supersedes: old.docId }, 'frm');
    // A log line LanceDB refuses (a null in a column that is not nullable): the third commit fails.
    const broken = entry(next.docId, { text: null as unknown as string });
    await expect(
      store.form('acme', {
        insert: [[next]],
        close: [{ docId: old.docId, validTo: NOW, invalidatedAt: NOW, supersededBy: next.docId }],
        log: [broken],
      }),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await store.getDocument('acme', next.docId)).toEqual([]);
    expect((await store.getDocument('acme', old.docId))[0]).toMatchObject({
      validTo: '2026-06-01T00:00:00.000Z',
      invalidatedAt: null,
      supersededBy: null,
    });
    expect(await store.formationLog('acme', [next.docId])).toEqual([]);
  });

  it('forget erases the decision-log lines of the forgotten memories from the files, and keeps the others', async () => {
    const uri = tempDir();
    const store = open(uri);
    const bobs = Array.from({ length: 30 }, (_, i) =>
      memoryRecord({ content: `Bob note ${i}`, agentId: 'bob', key: `/bob/${i}` }, 'frm'),
    );
    const alices = memoryRecord({ content: 'Alice formed this.', key: '/alice/1' }, 'frm');
    await store.form('acme', {
      insert: [...bobs.map((b) => [b]), [alices]],
      close: [],
      log: [
        ...bobs.map((b) => entry(b.docId, { text: 'bob said qzxbobline', agentId: 'bob' })),
        entry(alices.docId, { text: 'alice said qzxaliceline' }),
      ],
    });
    await store.optimize({ cleanupOlderThan: new Date() });
    expect(readTreeText(uri).includes('qzxaliceline'), 'the scan sees the line before forget').toBe(true);
    await store.deleteByAgent('acme', 'alice');
    expect(await store.formationLog('acme', [alices.docId])).toEqual([]);
    expect(
      await store.formationLog(
        'acme',
        bobs.map((b) => b.docId),
      ),
    ).toHaveLength(30);
    const raw = readTreeText(uri);
    expect(raw.includes('qzxbobline'), 'the lines kept are still on disk').toBe(true);
    expect(raw.includes('qzxaliceline'), 'a forgotten log line stayed in a LanceDB file').toBe(false);
  });
});
