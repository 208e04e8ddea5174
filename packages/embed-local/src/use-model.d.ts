/** The loaded model (see use-model.js). */
export interface UseModel {
  /** The vector of a text without tokens. */
  empty: Float32Array;
  /** One vector per text, in order; every text must have tokens. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Stops the model's worker thread, failing the calls waiting on it (absent on the calling thread). */
  close?(): Promise<void>;
}

export const WORKER_ROLE: string;

export function loadUseModel(): Promise<UseModel>;

/** A CommonJS module's exports, whether the loader put them on the namespace or on `default`. */
export function interop<T>(mod: T): T;
