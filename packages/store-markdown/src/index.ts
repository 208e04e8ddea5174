import { type NotebookStore, type StoreBundleCapabilities, storeBundle, type TranscriptStore } from '@mem/core/adapter';
import type { MarkdownStoreOptions } from './layout.js';
import { createMarkdownNotebookStore } from './notebook-store.js';
import { createMarkdownTranscriptStore, type MarkdownTranscriptStoreOptions } from './transcript-store.js';

export type { MarkdownStoreOptions } from './layout.js';
export { createMarkdownNotebookStore } from './notebook-store.js';
export {
  createMarkdownTranscriptStore,
  MARKDOWN_COMPACTION_STEPS,
  type MarkdownTranscriptStoreOptions,
} from './transcript-store.js';

/** Both Markdown stores over one workspace folder (see `createMarkdownStores`). */
export interface MarkdownStores {
  transcripts: TranscriptStore;
  notebooks: NotebookStore;
  /** What the two ports can do, read once when the bundle was built. */
  readonly capabilities: StoreBundleCapabilities;
  /** Close both stores (plain files: nothing stays open). Idempotent. */
  close(): Promise<void>;
}

/** The transcript and notebook stores over one workspace folder, in the bundle shape every store package shares. */
export function createMarkdownStores(options: MarkdownTranscriptStoreOptions): MarkdownStores {
  const { onCompactionStep: _hook, ...shared } = options;
  return storeBundle({
    transcripts: createMarkdownTranscriptStore(options),
    notebooks: createMarkdownNotebookStore(shared satisfies MarkdownStoreOptions),
  });
}
