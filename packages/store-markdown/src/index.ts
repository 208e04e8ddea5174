import type { NotebookStore, TranscriptStore } from '@mem/core/adapter';
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

/** Both Markdown stores over one workspace folder. */
export function createMarkdownStores(options: MarkdownTranscriptStoreOptions): {
  transcripts: TranscriptStore;
  notebooks: NotebookStore;
} {
  const { onCompactionStep: _hook, ...shared } = options;
  return {
    transcripts: createMarkdownTranscriptStore(options),
    notebooks: createMarkdownNotebookStore(shared satisfies MarkdownStoreOptions),
  };
}
