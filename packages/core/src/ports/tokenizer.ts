/**
 * Counts tokens the way a model does. `count` is synchronous so that services can keep running totals
 * cheaply: each text is counted once, when it enters a history, and never again.
 */
export interface Tokenizer {
  /** Names the encoding, e.g. `o200k_base`. */
  readonly id: string;
  count(text: string): number;
}
