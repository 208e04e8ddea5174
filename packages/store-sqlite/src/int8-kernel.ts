/**
 * Int8 dot products of one query against many rows, for the vector index's in-memory lists: a WebAssembly SIMD
 * module written byte by byte here (no toolchain, no binary file), with a plain JavaScript loop giving the same
 * integers where the runtime has no WebAssembly SIMD.
 *
 * Rows are stored with a stride that is a multiple of 16 bytes (`int8Stride`), the tail after the dimension filled
 * with zeros, so that the SIMD loop never needs a scalar tail: zeros add nothing to a dot product.
 *
 * The module, in text form:
 *
 *   (module
 *     (memory (export "memory") 1)
 *     ;; out[r] = Σ_i q[i] × codes[r × stride + i] for r in [0, rows), as i32, stride a multiple of 16 (> 0)
 *     (func (export "dots") (param $q i32) (param $codes i32) (param $rows i32) (param $stride i32) (param $out i32)
 *       (local $end i32) (local $i i32) (local $acc v128) (local $a v128) (local $b v128)
 *       (local.set $end (i32.add (local.get $out) (i32.mul (local.get $rows) (i32.const 4))))
 *       (block $done
 *         (br_if $done (i32.eqz (local.get $rows)))
 *         (loop $row
 *           (local.set $acc (i32x4.splat (i32.const 0)))
 *           (local.set $i (i32.const 0))
 *           (loop $chunk
 *             (local.set $a (v128.load (i32.add (local.get $q) (local.get $i))))
 *             (local.set $b (v128.load (i32.add (local.get $codes) (local.get $i))))
 *             (local.set $acc (i32x4.add (local.get $acc)
 *               (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))))
 *             (local.set $acc (i32x4.add (local.get $acc)
 *               (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b)))))
 *             (br_if $chunk (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $stride))))
 *           (i32.store (local.get $out) (i32.add
 *             (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
 *             (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
 *           (local.set $codes (i32.add (local.get $codes) (local.get $stride)))
 *           (br_if $row (i32.lt_u (local.tee $out (i32.add (local.get $out) (i32.const 4))) (local.get $end))))))
 *
 * Each `i32x4.dot_i16x8_s` lane adds two products of at most 128 × 128, so a lane holds at most 2^15 × stride / 8:
 * exact in 32 bits for any stride below 2^19 bytes.
 */

/** The row length in bytes for `dimension` int8 values: a multiple of 16, at least 16. */
export function int8Stride(dimension: number): number {
  return Math.max(16, Math.ceil(dimension / 16) * 16);
}

export interface Int8Kernel {
  /** True when the WebAssembly SIMD module runs the products; false for the JavaScript loop. */
  readonly simd: boolean;
  /**
   * The dot product of `query` (at most `stride` values; missing ones count as 0) with every row of every block,
   * block after block: each block holds whole rows of `stride` bytes.
   */
  dots(query: Int8Array, blocks: readonly Int8Array[], stride: number): Int32Array;
}

// ---- a tiny emitter for the module above ----

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function vector(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(s: string): number[] {
  const bytes = [...new TextEncoder().encode(s)];
  return [...uleb(bytes.length), ...bytes];
}

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  get: (local: number) => [0x20, ...uleb(local)],
  set: (local: number) => [0x21, ...uleb(local)],
  tee: (local: number) => [0x22, ...uleb(local)],
  i32Const: (n: number) => [0x41, ...uleb(n)], // small non-negative constants only (signed LEB below 64)
  i32Eqz: [0x45],
  i32LtU: [0x49],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32Store: [0x36, 0x02, 0x00], // align 2^2, offset 0
  v128Load: [0xfd, 0x00, 0x00, 0x00], // align 2^0, offset 0
  i32x4Splat: [0xfd, 0x11],
  i32x4ExtractLane: (lane: number) => [0xfd, 0x1b, lane],
  i16x8ExtendLowI8x16S: [0xfd, 0x87, 0x01],
  i16x8ExtendHighI8x16S: [0xfd, 0x88, 0x01],
  i32x4DotI16x8S: [0xfd, 0xba, 0x01],
  i32x4Add: [0xfd, 0xae, 0x01],
};

/** The module's bytes (see the text form in the header). */
export function int8KernelModule(): Uint8Array {
  // Parameters 0..4, then locals 5..9.
  const [q, codes, rows, stride, out, end, i, acc, a, b] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const half = (extend: number[]) => [
    ...op.get(acc),
    ...op.get(a),
    ...extend,
    ...op.get(b),
    ...extend,
    ...op.i32x4DotI16x8S,
    ...op.i32x4Add,
    ...op.set(acc),
  ];
  const body = [
    ...vector([
      [2, I32],
      [3, V128],
    ]),
    ...op.get(out),
    ...op.get(rows),
    ...op.i32Const(4),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.set(end),
    ...op.block,
    ...op.get(rows),
    ...op.i32Eqz,
    ...op.brIf(0),
    ...op.loop, // $row
    ...op.i32Const(0),
    ...op.i32x4Splat,
    ...op.set(acc),
    ...op.i32Const(0),
    ...op.set(i),
    ...op.loop, // $chunk
    ...op.get(q),
    ...op.get(i),
    ...op.i32Add,
    ...op.v128Load,
    ...op.set(a),
    ...op.get(codes),
    ...op.get(i),
    ...op.i32Add,
    ...op.v128Load,
    ...op.set(b),
    ...half(op.i16x8ExtendLowI8x16S),
    ...half(op.i16x8ExtendHighI8x16S),
    ...op.get(i),
    ...op.i32Const(16),
    ...op.i32Add,
    ...op.tee(i),
    ...op.get(stride),
    ...op.i32LtU,
    ...op.brIf(0),
    ...op.end, // $chunk
    ...op.get(out),
    ...op.get(acc),
    ...op.i32x4ExtractLane(0),
    ...op.get(acc),
    ...op.i32x4ExtractLane(1),
    ...op.i32Add,
    ...op.get(acc),
    ...op.i32x4ExtractLane(2),
    ...op.get(acc),
    ...op.i32x4ExtractLane(3),
    ...op.i32Add,
    ...op.i32Add,
    ...op.i32Store,
    ...op.get(codes),
    ...op.get(stride),
    ...op.i32Add,
    ...op.set(codes),
    ...op.get(out),
    ...op.i32Const(4),
    ...op.i32Add,
    ...op.tee(out),
    ...op.get(end),
    ...op.i32LtU,
    ...op.brIf(0),
    ...op.end, // $row
    ...op.end, // block
    ...op.end, // function
  ];
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d], // \0asm
    ...[0x01, 0x00, 0x00, 0x00], // version 1
    ...section(1, vector([[0x60, ...vector([[I32], [I32], [I32], [I32], [I32]]), 0x00]])), // type 0: (i32 ×5) → ()
    ...section(3, vector([[0x00]])), // function 0 has type 0
    ...section(5, vector([[0x00, 0x01]])), // memory 0: at least 1 page, no maximum
    ...section(
      7,
      vector([
        [...name('memory'), 0x02, 0x00],
        [...name('dots'), 0x00, 0x00],
      ]),
    ),
    ...section(10, vector([[...uleb(body.length), ...body]])),
  ];
  return Uint8Array.from(bytes);
}

/** The JavaScript loop: the same integers as the module. */
export function scalarInt8Kernel(): Int8Kernel {
  return {
    simd: false,
    dots(query, blocks, stride) {
      let total = 0;
      for (const block of blocks) total += block.length / stride;
      const out = new Int32Array(total);
      const n = Math.min(query.length, stride);
      let r = 0;
      for (const block of blocks) {
        for (let base = 0; base < block.length; base += stride) {
          let sum = 0;
          for (let k = 0; k < n; k++) sum += query[k]! * block[base + k]!;
          out[r++] = sum;
        }
      }
      return out;
    },
  };
}

const PAGE = 65_536;

/** The few parts of the WebAssembly JavaScript API used here (the package's type libraries do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The WebAssembly SIMD kernel, or null when the runtime cannot run it. */
export function simdInt8Kernel(): Int8Kernel | null {
  const bytes = int8KernelModule();
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined || !wasm.validate(bytes)) return null;
  const instance = new wasm.Instance(new wasm.Module(bytes), {});
  const memory = instance.exports.memory as WasmMemory;
  const run = instance.exports.dots as (q: number, codes: number, rows: number, stride: number, out: number) => void;
  return {
    simd: true,
    dots(query, blocks, stride) {
      if (stride <= 0 || stride % 16 !== 0) throw new Error(`int8 kernel: stride ${stride} is not a multiple of 16`);
      let codeBytes = 0;
      for (const block of blocks) codeBytes += block.length;
      const rows = codeBytes / stride;
      // Layout: the query (one row), the rows, then the results.
      const codesAt = stride;
      const outAt = codesAt + codeBytes;
      const needed = outAt + rows * 4;
      if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
      const heap = new Int8Array(memory.buffer);
      heap.fill(0, 0, stride);
      heap.set(query.length > stride ? query.subarray(0, stride) : query, 0);
      let at = codesAt;
      for (const block of blocks) {
        heap.set(block, at);
        at += block.length;
      }
      run(0, codesAt, rows, stride, outAt);
      return new Int32Array(memory.buffer, outAt, rows).slice();
    },
  };
}

let shared: Int8Kernel | undefined;

/** The process's kernel: SIMD where the runtime validates the module, the JavaScript loop elsewhere. */
export function int8Kernel(): Int8Kernel {
  shared ??= simdInt8Kernel() ?? scalarInt8Kernel();
  return shared;
}
