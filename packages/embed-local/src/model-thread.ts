import { Worker } from 'node:worker_threads';
import { type UseModel, WORKER_ROLE } from './use-model.js';

type Answer =
  | { id: number; error: string }
  | { id: number; empty: Float32Array }
  | { id: number; rows: number; dimension: number; data: Float32Array };

interface Waiting {
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

/**
 * The model on a worker thread of its own: TensorFlow.js runs there, so the thread that asked for an embedding is
 * free meanwhile (a search runs its keyword arm during the query's embedding; a server answers other requests).
 * Resolves once the worker has loaded the model. The worker holds the process open only while a call is waiting,
 * and a worker that dies fails every waiting call and `onExit` is told (the embedder starts a new one next time).
 */
export async function startModelThread(onExit: () => void): Promise<UseModel> {
  const worker = new Worker(new URL('./use-model.js', import.meta.url), { workerData: { role: WORKER_ROLE } });
  worker.unref();
  const waiting = new Map<number, Waiting>();
  let nextId = 0;
  let dead: Error | null = null;

  const failAll = (error: Error) => {
    dead ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
    onExit();
  };
  worker.on('message', (answer: Answer) => {
    const w = waiting.get(answer.id);
    if (!w) return;
    waiting.delete(answer.id);
    if (waiting.size === 0) worker.unref();
    w.resolve(answer);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`the model's worker thread exited (code ${code})`)));

  const ask = (texts: string[] | null): Promise<Answer> =>
    new Promise((resolve, reject) => {
      if (dead) {
        reject(dead);
        return;
      }
      const id = nextId++;
      waiting.set(id, {
        resolve: (answer) => ('error' in answer ? reject(new Error(answer.error)) : resolve(answer)),
        reject,
      });
      worker.ref();
      worker.postMessage({ id, texts });
    });

  let loaded: Answer;
  try {
    loaded = await ask(null);
    if (!('empty' in loaded)) throw new Error('the model worker answered the load without the empty vector');
  } catch (error) {
    // A worker that could not load is not kept (the next call starts a fresh one).
    await worker.terminate();
    throw error;
  }
  return {
    empty: loaded.empty,
    async close() {
      failAll(new Error('the model thread was closed'));
      await worker.terminate();
    },
    async embed(texts) {
      const answer = await ask(texts);
      if (!('data' in answer)) throw new Error('the model worker answered without vectors');
      const out: Float32Array[] = [];
      for (let i = 0; i < answer.rows; i++) {
        out.push(answer.data.slice(i * answer.dimension, (i + 1) * answer.dimension));
      }
      return out;
    },
  };
}
