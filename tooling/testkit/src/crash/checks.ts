/** The parent side of the crash harness, checking: the reopened store against the acknowledged writes. */
import type { Principal } from '@mem/core';
import type { KnowledgeStore, MemoryRecord } from '@mem/core/adapter';
import {
  conversationOver,
  fail,
  type HarnessOp,
  type HarnessPorts,
  MARKER,
  memoryOver,
  NOTEBOOK_FILES,
  notebookOver,
} from './shared.js';

export interface DocState {
  key: string;
  content: string;
  version: number;
  /** What happened to it, newest last (for the failure message). */
  log: string[];
}

const logged = (d: DocState | undefined, entry: string) => [...(d?.log ?? []), entry].slice(-8);
const short = (content: string) => content.split(' ')[0]!;

/** Every chunk of a space, grouped by document; torn documents (missing chunks, mixed versions) fail. */
export async function scanDocuments(store: KnowledgeStore, space: string): Promise<Map<string, MemoryRecord[]>> {
  const docs = new Map<string, MemoryRecord[]>();
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const rows = await store.scan({ space, limit: 500, ...(after ? { after } : {}) });
    for (const row of rows) docs.set(row.docId, [...(docs.get(row.docId) ?? []), row]);
    if (rows.length < 500) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  const keys = new Map<string, string>();
  for (const [docId, chunks] of docs) {
    const first = chunks[0]!;
    const indices = chunks.map((c) => c.chunkIndex).sort((a, b) => a - b);
    if (chunks.length !== first.chunkCount || indices.some((x, k) => x !== k))
      fail(`document ${docId} is torn: ${chunks.length} of ${first.chunkCount} chunks (${indices.join(',')})`);
    if (chunks.some((c) => c.version !== first.version || c.key !== first.key))
      fail(`document ${docId} has chunks of different versions or keys`);
    const owner = JSON.stringify([first.scope, first.agentId, first.key]);
    const other = keys.get(owner);
    if (other) fail(`duplicate key ${first.key}: documents ${other} and ${docId}`);
    keys.set(owner, docId);
  }
  return docs;
}

export function applyKnowledge(model: Map<string, DocState>, op: HarnessOp): void {
  if (op.op === 'store' && op.id)
    model.set(op.id, { key: op.key!, content: op.content, version: 1, log: [`store ${short(op.content)} v1`] });
  else if (op.op === 'edit') {
    const d = model.get(op.id);
    const version = op.version ?? (d?.version ?? 0) + 1;
    if (d)
      model.set(op.id, {
        key: op.key ?? d.key,
        content: op.content,
        version,
        log: logged(d, `edit ${short(op.content)} v${version}`),
      });
  } else if (op.op === 'move') {
    const d = model.get(op.id);
    const version = op.version ?? (d?.version ?? 0) + 1;
    if (d) model.set(op.id, { ...d, key: op.key, version, log: logged(d, `move ${op.key} v${version}`) });
  }
}

/**
 * In-flight operations whose outcome is open: the one running at the last kill, and earlier ones that were not
 * visible when checked. SQLite in WAL mode can make such a write visible later: a writer killed after its commit
 * reached the WAL but before it was published in the shared index is invisible to connections that stay open,
 * and appears once every connection has closed and the WAL is recovered. Never an acknowledged write.
 */
export type Unresolved = HarnessOp[];

export async function checkKnowledge(
  ports: HarnessPorts,
  space: string,
  agent: string,
  model: Map<string, DocState>,
  pending: HarnessOp | null,
  unresolved: Unresolved,
): Promise<'committed' | 'lost' | null> {
  const store = ports.knowledge!;
  const memory = memoryOver(ports);
  const p: Principal = { space, agentId: agent, role: 'lead' };
  const docs = await scanDocuments(store, space);
  const open = pending ? [...unresolved, pending] : [...unresolved];
  const settled = new Set<HarnessOp>();
  for (const [id, expected] of model) {
    if (!docs.has(id)) fail(`acknowledged document ${id} (${expected.key}) is missing`);
    const doc = await memory.peek(p, { id });
    if (doc.version === expected.version && doc.content === expected.content && doc.key === expected.key) continue;
    // A difference must come from in-flight writes of this document: one version each at most, their content/key.
    const mine = open.filter((op) => (op.op === 'edit' || op.op === 'move') && op.id === id);
    const contentOk =
      doc.content === expected.content || mine.some((op) => op.op === 'edit' && op.content === doc.content);
    const keyOk = doc.key === expected.key || mine.some((op) => 'key' in op && op.key === doc.key);
    const extra = doc.version - expected.version;
    if (contentOk && keyOk && extra >= 0 && extra <= mine.length) {
      for (const op of mine)
        if ((op.op === 'edit' && op.content === doc.content) || ('key' in op && op.key === doc.key)) settled.add(op);
      model.set(id, {
        key: doc.key,
        content: doc.content,
        version: doc.version,
        log: logged(expected, `in-flight write found committed: ${short(doc.content)} ${doc.key} v${doc.version}`),
      });
      continue;
    }
    fail(
      `document ${id}: acknowledged version ${expected.version} (${expected.key}, "${expected.content.slice(0, 40)}") but found version ${doc.version} (${doc.key}, "${doc.content.slice(0, 40)}"); acknowledged history: ${expected.log.join(' → ')}; in flight: ${JSON.stringify(mine).slice(0, 300)}`,
    );
  }
  for (const id of docs.keys()) {
    if (model.has(id)) continue;
    const doc = await memory.peek(p, { id });
    const store = open.find((op) => op.op === 'store' && op.content === doc.content);
    if (store) {
      settled.add(store);
      model.set(id, {
        key: doc.key,
        content: doc.content,
        version: doc.version,
        log: [`in-flight store ${short(doc.content)} found committed`],
      });
      continue;
    }
    fail(`document ${id} (${doc.key}) was never written by an acknowledged or in-flight store`);
  }
  const inFlight = pending ? (settled.has(pending) ? 'committed' : 'lost') : null;
  const still = open.filter((op) => !settled.has(op));
  unresolved.splice(0, unresolved.length, ...still);
  if (inFlight === 'lost' && pending && (pending.op === 'edit' || pending.op === 'move')) {
    const d = model.get(pending.id);
    if (d)
      d.log = logged(
        d,
        `in-flight ${pending.op} ${pending.op === 'edit' ? short(pending.content) : pending.key} not visible`,
      );
  }
  // The indexes agree with the rows: the newest documents are found by a word of their own.
  const recent = [...model.entries()].slice(-3);
  for (const [id, d] of recent) {
    const mark = d.content.split(' ')[0]!;
    const hits = await memory.search(p, { query: mark, limit: 5 });
    if (!hits.some((h) => h.id === id)) fail(`search for "${mark}" does not find document ${id}`);
  }
  return inFlight;
}

async function transcriptContents(ports: HarnessPorts, space: string, agent: string) {
  const store = ports.transcripts!;
  // Opening the conversation the way an agent does on start must work.
  await conversationOver(ports, space, agent).load();
  const current = (await store.read(space, agent))?.messages.map((m) => m.content) ?? [];
  const archives = await store.listArchives(space, agent);
  const all = [...current];
  for (const a of archives) for (const m of (await store.readArchive(space, agent, a.id)).messages) all.push(m.content);
  return { current, all, archives: archives.length };
}

export async function checkTranscript(
  ports: HarnessPorts,
  space: string,
  agent: string,
  acked: { adds: string[]; summaries: string[] },
  pending: HarnessOp | null,
): Promise<'committed' | 'lost' | null> {
  const { current, all, archives } = await transcriptContents(ports, space, agent);
  const seen = new Set(all);
  for (const content of acked.adds) if (!seen.has(content)) fail(`acknowledged message "${content}" is missing`);
  for (const summary of acked.summaries)
    if (!all.some((c) => c.includes(summary))) fail(`acknowledged compaction summary "${summary}" is missing`);
  if (archives < acked.summaries.length)
    fail(`${acked.summaries.length} compactions acknowledged but only ${archives} archives`);
  if (new Set(current).size !== current.length) fail('a message appears twice in the transcript');
  for (const c of all)
    if (!/^<[a-z0-9-]+> /.test(c) && !c.includes('> summary: '))
      fail(`a message that no writer wrote: "${c.slice(0, 60)}"`);
  if (!pending) return null;
  const committed =
    pending.op === 'add'
      ? seen.has(pending.content)
      : pending.op === 'compact' && all.some((c) => c.includes(pending.summary));
  if (committed) {
    if (pending.op === 'add') acked.adds.push(pending.content);
    else if (pending.op === 'compact') acked.summaries.push(pending.summary);
  }
  return committed ? 'committed' : 'lost';
}

export function applyNotebook(files: Record<string, string[]>, op: HarnessOp): Record<string, string[]> {
  const next = structuredClone(files);
  if (op.op === 'append') (next[op.file] ??= []).push(op.line);
  else if (op.op === 'replace')
    next[op.file] = (next[op.file] ?? []).flatMap((l) => (l === op.old ? (op.line ? [op.line] : []) : [l]));
  else if (op.op === 'drop') delete next[op.file];
  return next;
}

export async function readNotebook(
  ports: HarnessPorts,
  space: string,
  agent: string,
): Promise<Record<string, string[]>> {
  const notebook = notebookOver(ports);
  const owner = { space, agentId: agent };
  const listed = await notebook.list(owner);
  const out: Record<string, string[]> = {};
  for (const f of listed.files) {
    if (!NOTEBOOK_FILES.includes(f.file)) fail(`a notebook file no writer created: ${f.file}`);
    const read = await notebook.read(owner, { file: f.file });
    if (read.truncated) fail(`${f.file} is over the read limit`);
    out[f.file] = read.content.match(MARKER) ?? [];
  }
  return out;
}

/**
 * The notebook found must equal the acknowledged writes, except where an in-flight write (see Unresolved) explains
 * the difference: a marker line only an in-flight append or replace wrote, a line only an in-flight replace or drop
 * removed, a file only an in-flight write created or an in-flight drop deleted.
 */
export function checkNotebook(
  found: Record<string, string[]>,
  model: Record<string, string[]>,
  pending: HarnessOp | null,
  unresolved: Unresolved,
): 'committed' | 'lost' | null {
  const open = pending ? [...unresolved, pending] : [...unresolved];
  const settled = new Set<HarnessOp>();
  const unexplained: string[] = [];
  for (const file of new Set([...Object.keys(found), ...Object.keys(model)])) {
    const mine = open.filter((op) => 'file' in op && op.file === file);
    const dropped = mine.filter((op) => op.op === 'drop');
    const has = new Set(found[file] ?? []);
    const had = new Set(model[file] ?? []);
    if (!(file in found) && file in model) {
      if (dropped.length === 0) unexplained.push(`${file} is gone`);
      for (const op of dropped) settled.add(op);
      continue;
    }
    if (file in found && !(file in model) && !mine.some((op) => op.op === 'append' || op.op === 'replace'))
      unexplained.push(`${file} exists`);
    for (const line of has) {
      if (had.has(line)) continue;
      const writer = mine.find((op) => (op.op === 'append' || op.op === 'replace') && op.line === line);
      if (writer) settled.add(writer);
      else unexplained.push(`${file} holds ${line}`);
    }
    for (const line of had) {
      if (has.has(line)) continue;
      const remover = mine.find((op) => op.op === 'replace' && op.old === line);
      if (remover) settled.add(remover);
      else if (dropped.length > 0) for (const op of dropped) settled.add(op);
      else unexplained.push(`${file} lost ${line}`);
    }
  }
  if (unexplained.length > 0)
    fail(
      `notebook differs from the acknowledged writes (${unexplained.slice(0, 6).join('; ')}): expected ${JSON.stringify(model)}, in flight ${JSON.stringify(open).slice(0, 300)}, found ${JSON.stringify(found)}`,
    );
  unresolved.splice(0, unresolved.length, ...open.filter((op) => !settled.has(op)));
  return pending ? (settled.has(pending) ? 'committed' : 'lost') : null;
}
