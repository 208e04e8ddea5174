/**
 * Posting blocks of the pruned keyword index: up to BLOCK postings of one term in one space, in rid order. A posting
 * is (rid, tf, dl, owner): dl is the chunk's token count (name and content together), owner who sees it (0: the
 * whole swarm of the space; otherwise the code of the one agent that owns it, see `kw_owners`).
 *
 * A block is stored as four columns, each in the narrowest of 1, 2 or 4 bytes per value that holds its largest value
 * (rids as offsets from the block's first rid, which is the row's key): a 4-byte header gives the four widths. Short
 * memories, tens of agents and dense rids make most postings 5 bytes, so a search reads about a third of the bytes
 * of fixed 16-byte postings, in a third of the rows.
 */

/** Postings per block: 128 × 5 bytes stay within a page of the WITHOUT ROWID table (no overflow pages). */
export const BLOCK = 128;

export interface Postings {
  /** Float64: a rid may exceed 32 bits. */
  rids: Float64Array;
  tfs: Uint32Array;
  dls: Uint32Array;
  owners: Uint32Array;
}

/** One posting as [rid, tf, dl, owner]. */
export type Posting = [number, number, number, number];

function width(max: number): number {
  return max < 0x100 ? 1 : max < 0x10000 ? 2 : 4;
}

/** Read `n` values of `w` bytes at `offset` of `bytes` into `out` from index `at` (little-endian). */
function readColumn(
  bytes: Uint8Array,
  offset: number,
  w: number,
  n: number,
  out: Uint32Array | Float64Array,
  at: number,
): void {
  if (w === 1) {
    out.set(bytes.subarray(offset, offset + n), at);
    return;
  }
  // A copy into an aligned buffer: the column may start at any offset.
  const aligned = new Uint8Array(n * w);
  aligned.set(bytes.subarray(offset, offset + n * w));
  out.set(w === 2 ? new Uint16Array(aligned.buffer) : new Uint32Array(aligned.buffer), at);
}

/** Decode the block `data` (`n` postings from rid `first`) into `out` at index `at`. */
export function unpackInto(data: Uint8Array, first: number, n: number, out: Postings, at: number): void {
  let offset = 4;
  const columns = [out.rids, out.tfs, out.dls, out.owners];
  for (let c = 0; c < 4; c++) {
    const w = data[c]!;
    readColumn(data, offset, w, n, columns[c]!, at);
    offset += w * n;
  }
  const rids = out.rids;
  for (let i = at; i < at + n; i++) rids[i] = rids[i]! + first;
}

export function unpack(data: Uint8Array, first: number, n: number): Postings {
  const out: Postings = {
    rids: new Float64Array(n),
    tfs: new Uint32Array(n),
    dls: new Uint32Array(n),
    owners: new Uint32Array(n),
  };
  unpackInto(data, first, n, out, 0);
  return out;
}

export function pack(postings: readonly Posting[], from: number, to: number): Buffer {
  const n = to - from;
  const first = postings[from]![0];
  const max = [0, 0, 0, 0];
  for (let i = from; i < to; i++) {
    const p = postings[i]!;
    max[0] = Math.max(max[0]!, p[0] - first);
    for (let c = 1; c < 4; c++) max[c] = Math.max(max[c]!, p[c]!);
  }
  const widths = max.map(width);
  const out = Buffer.alloc(4 + n * widths.reduce((a, b) => a + b, 0));
  let at = 4;
  for (let c = 0; c < 4; c++) {
    const w = widths[c]!;
    out[c] = w;
    for (let i = from; i < to; i++) {
      const v = c === 0 ? postings[i]![0] - first : postings[i]![c]!;
      if (w === 1) out.writeUInt8(v, at);
      else if (w === 2) out.writeUInt16LE(v, at);
      else out.writeUInt32LE(v, at);
      at += w;
    }
  }
  return out;
}

/** The postings of a block as tuples. */
export function tuples(p: Postings): Posting[] {
  const out: Posting[] = new Array(p.rids.length);
  for (let i = 0; i < p.rids.length; i++) out[i] = [p.rids[i]!, p.tfs[i]!, p.dls[i]!, p.owners[i]!];
  return out;
}
