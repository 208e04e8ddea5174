import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeForget } from '@mem/testkit';
import { createMarkdownStores } from './index.js';

/** Every file under `dir`, as text. */
function readTree(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}

// Transcripts and notebooks as Markdown files; the raw scan reads every file of the workspace folder.
describeForget('markdown', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mem-markdown-forget-'));
  const { transcripts, notebooks } = createMarkdownStores({ root });
  return {
    transcripts,
    notebooks,
    raw: async () => readTree(root),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
});
