import { createRequire } from 'node:module';
import type { Tokenizer } from '../ports/tokenizer.js';

/** BPE encodings shipped by gpt-tokenizer that mem offers. o200k_base: GPT-4o and later; cl100k_base: GPT-4/3.5. */
export type GptEncoding = 'o200k_base' | 'cl100k_base';

interface Encoder {
  countTokens(text: string): number;
}

const loaded = new Map<GptEncoding, Encoder>();
const requireCjs = createRequire(import.meta.url);

function encoder(encoding: GptEncoding): Encoder {
  let enc = loaded.get(encoding);
  if (!enc) {
    // Loaded on first use (the rank tables take about a second to load), then shared by every tokenizer.
    enc = (
      encoding === 'cl100k_base'
        ? requireCjs('gpt-tokenizer/encoding/cl100k_base')
        : requireCjs('gpt-tokenizer/encoding/o200k_base')
    ) as Encoder;
    loaded.set(encoding, enc);
  }
  return enc;
}

/**
 * A real BPE tokenizer (the pure-JavaScript gpt-tokenizer package), counting exactly as OpenAI models do and
 * closely enough for other models' budgets. The encoding loads lazily on the first count.
 */
export function createGptTokenizer(options: { encoding?: GptEncoding } = {}): Tokenizer {
  const encoding = options.encoding ?? 'o200k_base';
  return {
    id: encoding,
    count(text: string): number {
      return text.length === 0 ? 0 : encoder(encoding).countTokens(text);
    },
  };
}

let shared: Tokenizer | undefined;
/** The default tokenizer of the services (o200k_base), one instance per process. */
export function defaultTokenizer(): Tokenizer {
  shared ??= createGptTokenizer();
  return shared;
}
