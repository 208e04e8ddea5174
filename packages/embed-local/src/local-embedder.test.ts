import { MemError } from '@mem/core';
import { describeEmbedder } from '@mem/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder, type LocalEmbedder } from './index.js';

// The real model (no mocks). It loads once for the whole file, in beforeAll.

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

describe('createLocalEmbedder (Universal Sentence Encoder lite, offline)', () => {
  // A small batch size so a dozen texts span several batches.
  let embedder: LocalEmbedder;

  beforeAll(async () => {
    embedder = createLocalEmbedder({ batchSize: 4 });
    // Concurrent first calls share one load.
    const [a, b] = await Promise.all([embedder.embed(['warm up']), embedder.embed(['warm up']), embedder.load()]);
    expect(maxAbsDiff(a![0]!, b![0]!)).toBe(0);
  });

  it('has the stable id and 512-dimensional Float32Array vectors, one per text', async () => {
    expect(embedder.id).toBe('use-lite-512');
    expect(embedder.dimension).toBe(512);
    const vectors = await embedder.embed(['The build failed on Node 18.', '']);
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(v.every(Number.isFinite)).toBe(true);
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it('gives identical vectors for the same text, within a call and across calls', async () => {
    const text = 'Deployments to production happen every Tuesday after the QA sign-off.';
    const [a, b] = await embedder.embed([text, text]);
    const [c] = await embedder.embed([text]);
    expect(maxAbsDiff(a!, b!)).toBe(0);
    expect(maxAbsDiff(a!, c!)).toBeLessThan(1e-5);
  });

  it('keeps the input order across sorted batches (empty strings included)', async () => {
    const texts = [
      'The staging database is refreshed from a production snapshot every night at two.',
      'ok',
      '',
      'Use pnpm, not npm, in this repository.',
      'Retry the payment webhook at most three times with exponential backoff, then page the on-call engineer.',
      'Tabs or spaces?',
      'The API rate limit is 600 requests per minute per key.',
      'a',
      '',
      'Our logo is teal.',
      'Customer data must stay in the EU region; never replicate it to us-east-1 or any other US region.',
      'Lunch is at noon.',
    ];
    const together = await embedder.embed(texts);
    expect(together).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embed([texts[i]!]);
      expect(maxAbsDiff(together[i]!, alone!), `text #${i}`).toBeLessThan(1e-5);
    }
    // Distinct texts really got distinct vectors (a shuffled result would fail the loop above anyway).
    expect(maxAbsDiff(together[0]!, together[3]!)).toBeGreaterThan(1e-3);
  });

  it('scores a paraphrase above an unrelated sentence', async () => {
    const [query, paraphrase, unrelated] = await embedder.embed([
      'How do I reset my password?',
      'What are the steps to change a forgotten password?',
      'The cafeteria serves pasta on Fridays.',
    ]);
    const near = cosine(query!, paraphrase!);
    const far = cosine(query!, unrelated!);
    expect(near).toBeGreaterThan(far + 0.2);
  });

  it('rejects bad input with INVALID_INPUT', async () => {
    let thrown: unknown;
    try {
      createLocalEmbedder({ batchSize: 0 });
    } catch (e) {
      thrown = e;
    }
    expect(MemError.is(thrown, 'INVALID_INPUT')).toBe(true);
    const error = await embedder.embed(['fine', 42 as unknown as string]).catch((e: unknown) => e);
    expect(MemError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as MemError).message).toContain('texts[1]');
  });
});

// The port's conformance suite: the local model spends no tokens (no embedWithUsage), so every result reports zero.
// One embedder for the suite's three tests: the model loads once.
let shared: LocalEmbedder | undefined;
describeEmbedder('local (USE lite)', async () => ({ embedder: (shared ??= createLocalEmbedder()) }));
