/**
 * The positions of the `want` best of `count` items (0 … count − 1), where `worse(a, b)` says item a ranks below
 * item b (ties must be broken inside `worse`, so that the choice never depends on the scan order). A bounded heap
 * whose root is the worst item kept: no sort of every item, no allocation per item. The positions come back in heap
 * order; sort them if order matters.
 */
export function selectBest(count: number, want: number, worse: (a: number, b: number) => boolean): number[] {
  const heap: number[] = [];
  if (want <= 0) return heap;
  const down = (start: number) => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let item = 0; item < count; item++) {
    if (heap.length < want) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    } else if (worse(heap[0]!, item)) {
      heap[0] = item;
      down(0);
    }
  }
  return heap;
}
