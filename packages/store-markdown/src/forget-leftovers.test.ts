import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInMemoryKnowledgeStore, createStack, forget } from '@mem/core';
import { readTreeText, tempDir } from '@mem/testkit';
import { expect, it } from 'vitest';
import { createMarkdownStores } from './index.js';
import { agentDir, notebookDir, resolveOptions } from './layout.js';

// Crashes leave copies of a subject's text beside the files forget removes: a temporary file of a write that never
// got renamed, and the folder a removal moved aside before its delete. Forget removes those too.
it('forget removes the leftovers of crashed writes and removals of the subject', async () => {
  const dir = tempDir('markdown-leftovers');
  const { transcripts, notebooks } = createMarkdownStores({ root: dir.path });
  const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), transcripts, notebooks });
  const o = resolveOptions({ root: dir.path });
  const alice = { space: 'acme', agentId: 'alice', role: 'worker' as const };
  const lead = { space: 'acme', agentId: 'lead', role: 'lead' as const };
  try {
    await stack.notebook!.write({ ...alice, user: 'ada' }, { content: '- qzxusermarker likes tea' });
    await stack.notebook!.write(alice, { content: '- qzxalicemarker note' });
    await stack.conversations!.open({ space: 'acme', agentId: 'alice' }).add('user', 'qzxalicemarker here');
    // A write of ada's notebook that crashed before its rename, and removals that crashed before their delete.
    const userDir = notebookDir(o, { space: 'acme', agent: 'alice', user: 'ada' });
    writeFileSync(path.join(userDir, '.MEMORY.md.tmp-999.abcd'), '- qzxusermarker, unsaved');
    const agentTranscripts = agentDir(o, 'acme', 'alice');
    mkdirSync(path.join(path.dirname(agentTranscripts), '.alice.removed-999-1'));
    writeFileSync(path.join(path.dirname(agentTranscripts), '.alice.removed-999-1', 'transcript.md'), 'qzxalicemarker');
    const agentNotes = notebookDir(o, { space: 'acme', agent: 'alice' });
    mkdirSync(path.join(path.dirname(agentNotes), '.alice.removed-999-2'));
    writeFileSync(path.join(path.dirname(agentNotes), '.alice.removed-999-2', 'MEMORY.md'), 'qzxalicemarker');

    await forget(stack, lead, { userId: 'ada' }, { agents: ['alice'] });
    expect(readTreeText(dir.path).includes('qzxusermarker'), 'a temporary file of the forgotten user stayed').toBe(
      false,
    );
    await forget(stack, lead, { agentId: 'alice' });
    expect(readTreeText(dir.path).includes('qzxalicemarker'), 'a removed folder of the forgotten agent stayed').toBe(
      false,
    );
  } finally {
    await stack.close();
    dir.remove();
  }
});
