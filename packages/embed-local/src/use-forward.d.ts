/** The weights the forward pass reads (see use-forward.js). */
export type UseWeights = Record<string, unknown>;

/** Length of every vector the forward pass returns. */
export const DIMENSION: number;

/** Texts are cut to this many tokens. */
export const MAX_TOKENS: number;

/** Reads and checks the weights out of a loaded GraphModel; throws naming a missing or misshapen weight. */
export function useWeights(graph: { weights: Record<string, unknown[]> }): UseWeights;

/** Embeds rows of token ids; resolves to rows.length × 512 values. */
export function forward(tf: unknown, weights: UseWeights, rows: number[][]): Promise<Float32Array>;
