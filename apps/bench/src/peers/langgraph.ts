/**
 * LangGraph JS `InMemoryStore` (npm `@langchain/langgraph`) with an embedding index as a bench peer. The index's
 * `embeddings` must be a `@langchain/core` `Embeddings` (the store's types ask for the class; at run time it only
 * calls embedDocuments/embedQuery): this one embeds in process with the bench's embedder, so no HTTP hop.
 * Documents are stored under [namespace] or, with an owner, [namespace, "shared"] / [namespace, "private", owner];
 * a viewer's search is the store's own search over the shared and the viewer's namespaces, merged by score.
 */
import { Embeddings } from '@langchain/core/embeddings';
import type { Embedder } from '@mem/core/adapter';
import type { Peer, PeerDoc, PeerOptions } from './types.js';

class BenchEmbeddings extends Embeddings {
  ms = 0;
  constructor(private readonly inner: Embedder) {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    const t0 = performance.now();
    const vs = await this.inner.embed(texts);
    const out = vs.map((v) => Array.from(v));
    this.ms += performance.now() - t0;
    return out;
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

/**
 * A dataset or owner id as a LangGraph namespace label: labels may not contain periods (nor be empty), so `%` and `.`
 * are percent-encoded — one-to-one, so two ids never share a label.
 */
export const label = (id: string) => (id.length === 0 ? '%' : id.replaceAll('%', '%25').replaceAll('.', '%2E'));

const path = (doc: PeerDoc) =>
  doc.owner === undefined
    ? [label(doc.namespace)]
    : doc.shared
      ? [label(doc.namespace), 'shared']
      : [label(doc.namespace), 'private', label(doc.owner)];

export async function openLangGraph({ embedder }: PeerOptions): Promise<Peer> {
  const { InMemoryStore } = await import('@langchain/langgraph');
  const embeddings = new BenchEmbeddings(embedder);
  const store = new InMemoryStore({ index: { embeddings, dims: embedder.dimension, fields: ['text'] } });
  return {
    name: 'langgraph',
    async ingest(batch) {
      await store.batch(batch.map((doc) => ({ namespace: path(doc), key: doc.id, value: { text: doc.text } })));
    },
    async search(query, k, namespace, viewer) {
      const ns = label(namespace);
      const prefixes =
        viewer === undefined
          ? [[ns]]
          : [
              [ns, 'shared'],
              [ns, 'private', label(viewer)],
            ];
      const hits = (await Promise.all(prefixes.map((p) => store.search(p, { query, limit: k })))).flat();
      if (prefixes.length > 1) hits.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
      return hits.slice(0, k).map((h) => h.key);
    },
    embedMs: () => embeddings.ms,
    async close() {},
  };
}
