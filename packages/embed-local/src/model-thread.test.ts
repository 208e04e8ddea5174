import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError } from '@mem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './index.js';

// The model on its own worker thread (the default) against the model on the calling thread: the real model both ways.

const dir = mkdtempSync(join(tmpdir(), 'mem-embed-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = [
  'The build failed on Node 18.',
  '',
  'Deployments happen on Tuesdays.',
  'a',
  'Where is the on-call runbook?',
];

describe('the model thread', () => {
  it('gives exactly the vectors the calling thread computes, in order, empty strings included', async () => {
    const [threaded, inline] = await Promise.all([
      createLocalEmbedder({ thread: true, batchSize: 2 }).embed(TEXTS),
      createLocalEmbedder({ thread: false, batchSize: 2 }).embed(TEXTS),
    ]);
    expect(threaded).toHaveLength(TEXTS.length);
    for (const [i, v] of threaded.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(Array.from(v)).toEqual(Array.from(inline[i]!));
    }
    // Each vector owns its memory (no view of a buffer shared with the others).
    expect(threaded[0]!.buffer).not.toBe(threaded[2]!.buffer);
  });

  it('answers concurrent calls each with its own vectors', async () => {
    const embedder = createLocalEmbedder();
    const answers = await Promise.all(TEXTS.map((t) => embedder.embed([t, t])));
    const alone = await createLocalEmbedder({ thread: false }).embed(TEXTS);
    for (const [i, pair] of answers.entries()) {
      expect(Array.from(pair[0]!)).toEqual(Array.from(alone[i]!));
      expect(Array.from(pair[1]!)).toEqual(Array.from(alone[i]!));
    }
  });

  it('keeps a process alive while an embedding is awaited, and lets it exit once idle', async () => {
    // Top-level await on the embedding with nothing else to do: the process must wait for the answer (exit code 13
    // and no output if the worker did not hold it open), then exit on its own (a timeout if the idle worker held it).
    const script = join(dir, 'embed-once.mts');
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    writeFileSync(
      script,
      `import { createLocalEmbedder } from ${JSON.stringify(entry)};\n` +
        `const [v] = await createLocalEmbedder().embed(['one text']);\n` +
        'console.log(v.length);\n',
    );
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--conditions=dev-source', '--import', 'tsx', script], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stdout.trim()).toBe('512');
  }, 60_000);

  it('close stops the thread: a waiting call fails with EMBEDDER_FAILED, and the next call starts a new thread', async () => {
    const embedder = createLocalEmbedder();
    const before = await embedder.embed([TEXTS[0]!]);
    const waiting = expect(
      embedder.embed(Array.from({ length: 64 }, (_, i) => `a longer text number ${i} to keep it busy`)),
    ).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });
    await embedder.close();
    await waiting;
    const after = await embedder.embed([TEXTS[0]!]);
    expect(Array.from(after[0]!)).toEqual(Array.from(before[0]!));
  });

  it('refuses a thread option that is not a boolean', () => {
    const bad = () => createLocalEmbedder({ thread: 'yes' as unknown as boolean });
    expect(bad).toThrow(MemError);
    expect(bad).toThrow(/thread must be true or false/);
  });
});
