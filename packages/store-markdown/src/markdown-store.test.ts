import { rm, writeFile } from 'node:fs/promises';
import { describeNotebookStore, describeTranscriptStore, tempFixture } from '@mem/testkit';
import { createMarkdownNotebookStore, createMarkdownTranscriptStore } from './index.js';

/** The folder is gone and a file stands in its place: nothing can be written below it. */
async function replaceByFile(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
  await writeFile(root, 'not a folder');
}

describeTranscriptStore('markdown', async (options) => {
  const f = tempFixture('md', (root, o: typeof options = {}) => createMarkdownTranscriptStore({ root, ...o }), options);
  return { ...f, makeUnreachable: () => replaceByFile(f.dir) };
});

describeNotebookStore('markdown', async () => {
  const f = tempFixture('md', (root) => createMarkdownNotebookStore({ root }));
  return { ...f, makeUnreachable: () => replaceByFile(f.dir) };
});
