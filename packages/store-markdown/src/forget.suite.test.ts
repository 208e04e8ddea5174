import { describeForget, readTreeText, tempDir } from '@mem/testkit';
import { createMarkdownStores } from './index.js';

// Transcripts and notebooks as Markdown files; the raw scan reads every file of the workspace folder.
describeForget('markdown', async () => {
  const dir = tempDir('markdown-forget');
  const { transcripts, notebooks } = createMarkdownStores({ root: dir.path });
  return {
    transcripts,
    notebooks,
    raw: async () => readTreeText(dir.path),
    cleanup: async () => dir.remove(),
  };
});
