/**
 * How much longer a reader takes on a text 8× as long, for the linear-time tests: the best of three runs at each
 * size, measured again (up to four rounds) while the ratio looks like noise above `limit`. Linear is ~8; a reader that
 * looks back over what it read grows with the square (64).
 */
export function growthOf(run: (text: string) => unknown, piece: string, size: number, limit = 24): number {
  const small = piece.repeat(Math.ceil(size / piece.length));
  const large = small.repeat(8);
  const cost = (text: string) => {
    let best = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      run(text);
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  };
  let ratio = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 4 && ratio > limit; round++) ratio = cost(large) / Math.max(cost(small), 0.5);
  return ratio;
}
