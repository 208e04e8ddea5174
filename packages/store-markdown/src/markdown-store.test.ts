import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeNotebookStore, describeTranscriptStore } from '@mem/testkit';
import { createMarkdownNotebookStore, createMarkdownTranscriptStore } from './index.js';

const tempRoot = () => mkdtemp(path.join(os.tmpdir(), 'mem-md-'));

describeTranscriptStore('markdown', async (options) => {
  const root = await tempRoot();
  return {
    store: createMarkdownTranscriptStore({ root, ...options }),
    cleanup: () => rm(root, { recursive: true, force: true }),
    openAnother: async (o = {}) => createMarkdownTranscriptStore({ root, ...o }),
    // The folder is gone and a file stands in its place: nothing can be written below it.
    makeUnreachable: async () => {
      await rm(root, { recursive: true, force: true });
      await writeFile(root, 'not a folder');
    },
  };
});

describeNotebookStore('markdown', async () => {
  const root = await tempRoot();
  return {
    store: createMarkdownNotebookStore({ root }),
    cleanup: () => rm(root, { recursive: true, force: true }),
    openAnother: async () => createMarkdownNotebookStore({ root }),
    makeUnreachable: async () => {
      await rm(root, { recursive: true, force: true });
      await writeFile(root, 'not a folder');
    },
  };
});
