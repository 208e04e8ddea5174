/**
 * `forget { messages }` (docs/safety.md, docs/formation.md): forget follows the evidence. A formed memory (source
 * `distilled`) rests on the messages its decision-log lines cite; when every one of them is being forgotten, the
 * memory goes with its chunks, versions, ratings and log lines. A memory that other messages support as well stays.
 */
import type { DeletedByAgent, FormationEntry, KnowledgeStore } from '../ports/knowledge-store.js';
import type { Stack } from '../stack.js';
import type { MemoryRecord } from '../types.js';
import { distillMessageId } from './knowledge/formation.js';

/** Chunk rows read per scan page. */
const SCAN_PAGE = 500;
/** Memory ids asked for per `formationLog` call. */
const LOG_BATCH = 200;

/**
 * The formed memories (source `distilled`) of a space, up to 200 at a time (a chunk row of each) with their decision-log lines: one scan in
 * pages of 500 chunk rows, one `formationLog` call per batch. Linear in chunks and log lines.
 */
export async function* formedBatches(
  store: KnowledgeStore,
  space: string,
): AsyncGenerator<{ docs: MemoryRecord[]; lines: FormationEntry[] }> {
  const seen = new Set<string>();
  let batch: MemoryRecord[] = [];
  const lines = () =>
    store.formationLog(
      space,
      batch.map((d) => d.docId),
    );
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const page = await store.scan({ space, limit: SCAN_PAGE, ...(after ? { after } : {}) });
    for (const row of page) {
      if (row.source !== 'distilled' || seen.has(row.docId)) continue;
      seen.add(row.docId);
      batch.push(row);
      if (batch.length === LOG_BATCH) {
        yield { docs: batch, lines: await lines() };
        batch = [];
      }
    }
    const last = page.at(-1);
    if (!last || page.length < SCAN_PAGE) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  if (batch.length > 0) yield { docs: batch, lines: await lines() };
}

/** What the log lines of one memory cite, measured against the ids being forgotten. */
interface Support {
  /** Some line cites a message being forgotten. */
  touched: boolean;
  /** Some line cites a message that is not being forgotten. */
  elsewhere: boolean;
}

/** How the log lines of a batch of memories support them: one pass over the lines and their evidence. */
function supportOf(lines: readonly FormationEntry[], ids: ReadonlySet<string>): Map<string, Support> {
  const support = new Map<string, Support>();
  for (const line of lines) {
    let s = support.get(line.memoryId);
    if (!s) {
      s = { touched: false, elsewhere: false };
      support.set(line.memoryId, s);
    }
    for (const messageId of line.evidence) {
      if (ids.has(messageId)) s.touched = true;
      else s.elsewhere = true;
    }
  }
  return support;
}

/**
 * Delete every formed memory of `space` whose evidence (the union of `evidence` over all its decision-log lines) is
 * non-empty and lies within `ids`. One scan of the space in pages of 500 chunk rows, the log lines of the formed
 * memories fetched 200 memories at a time, then one delete per memory: linear in memories and log lines.
 *
 * Returns what went (documents, chunks and versions; the port cannot count ratings, so `ratings` stays 0 although
 * they are deleted too) and `kept`: the formed memories that cite some of `ids` but also other messages, and so stay.
 * Memories of other sources, and formed memories without log lines, are never touched.
 */
export async function forgetFormedByEvidence(
  stack: Stack,
  space: string,
  ids: ReadonlySet<string>,
): Promise<{ gone: DeletedByAgent; kept: number }> {
  const store = stack.knowledgeStore;
  const gone: DeletedByAgent = { documents: 0, chunks: 0, versions: 0, ratings: 0 };
  if (ids.size === 0) return { gone, kept: 0 };
  const doomed: string[] = [];
  let kept = 0;
  for await (const { docs, lines } of formedBatches(store, space)) {
    const support = supportOf(lines, ids);
    for (const { docId } of docs) {
      const s = support.get(docId);
      if (!s?.touched) continue;
      if (s.elsewhere) kept++;
      else doomed.push(docId);
    }
  }

  // Deleted after the scan, so that its pages are read from an unchanged store.
  for (const docId of doomed) {
    const versions = (await store.listVersions(space, docId)).length;
    const chunks = await store.deleteDocument(space, docId);
    if (chunks > 0) {
      gone.documents++;
      gone.chunks += chunks;
      gone.versions += versions;
    }
  }
  return { gone, kept };
}

/**
 * The message ids distillation gives an agent's transcript and its archives (`distillMessageId`): what forgetting
 * that conversation takes away as evidence. Read before the transcript is removed.
 */
export async function transcriptEvidenceIds(stack: Stack, space: string, agentId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const conversations = stack.conversations;
  if (!conversations) return ids;
  const add = (messages: readonly { role: string; content: string; at: string }[]) => {
    for (const m of messages) ids.add(distillMessageId(agentId, m));
  };
  add((await conversations.store.read(space, agentId))?.messages ?? []);
  for (const archive of await conversations.store.listArchives(space, agentId)) {
    add((await conversations.store.readArchive(space, agentId, archive.id)).messages);
  }
  return ids;
}
