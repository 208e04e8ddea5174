// The int8 dot-product kernel (src/int8-kernel.ts): the WebAssembly SIMD module validates and gives exactly the
// integers of the JavaScript loop and of a plain reference sum, for many dimensions (tails of every length) and
// extreme values.
import { seededRandom } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  type Int8Kernel,
  int8Kernel,
  int8KernelModule,
  int8Stride,
  scalarInt8Kernel,
  simdInt8Kernel,
} from './int8-kernel.js';

const random = seededRandom(7);
const int8 = () => Math.floor(random() * 256) - 128;

/** `rows` random codes of `dimension` values, laid out with the kernel's stride (zeros after each row). */
function codes(rows: number, dimension: number, value: () => number = int8): { flat: Int8Array; rows: Int8Array[] } {
  const stride = int8Stride(dimension);
  const flat = new Int8Array(rows * stride);
  const list: Int8Array[] = [];
  for (let r = 0; r < rows; r++) {
    const row = Int8Array.from({ length: dimension }, value);
    flat.set(row, r * stride);
    list.push(row);
  }
  return { flat, rows: list };
}

function reference(query: Int8Array, rows: Int8Array[]): number[] {
  return rows.map((row) => row.reduce((sum, x, i) => sum + x * query[i]!, 0));
}

function simd(): Int8Kernel {
  const kernel = simdInt8Kernel();
  if (kernel === null) throw new Error('this runtime should run WebAssembly SIMD (Node 22)');
  return kernel;
}

describe('int8 kernel', () => {
  it('encodes a module the runtime validates, and is the one in use', () => {
    const wasm = (globalThis as { WebAssembly?: { validate(bytes: Uint8Array): boolean } }).WebAssembly;
    expect(wasm?.validate(int8KernelModule())).toBe(true);
    expect(int8Kernel().simd).toBe(true);
    // A corrupted module does not validate (so validation is a real check of the bytes).
    const broken = int8KernelModule();
    broken[broken.length - 2] = 0xff;
    expect(wasm?.validate(broken)).toBe(false);
  });

  it('rounds strides up to 16 bytes', () => {
    expect([1, 15, 16, 17, 512, 1536].map(int8Stride)).toEqual([16, 16, 16, 32, 512, 1536]);
  });

  it('gives small dot products exactly', () => {
    const stride = int8Stride(3);
    const row = new Int8Array(stride * 2);
    row.set([4, 5, 6], 0);
    row.set([-1, 0, 1], stride);
    const query = Int8Array.from([1, 2, 3]);
    expect([...simd().dots(query, [row], stride)]).toEqual([32, 2]);
    expect([...scalarInt8Kernel().dots(query, [row], stride)]).toEqual([32, 2]);
  });

  it('matches the JavaScript loop and the reference on random data, for every tail length', () => {
    const fast = simd();
    const slow = scalarInt8Kernel();
    for (const dimension of [1, 2, 7, 15, 16, 17, 31, 33, 100, 255, 512, 1000, 1536]) {
      const stride = int8Stride(dimension);
      const query = Int8Array.from({ length: dimension }, int8);
      // Several blocks of different sizes, one empty, as the cached lists come.
      const blocks = [codes(37, dimension), codes(0, dimension), codes(5, dimension), codes(120, dimension)];
      const want = blocks.flatMap((b) => reference(query, b.rows));
      const flats = blocks.map((b) => b.flat);
      expect([...fast.dots(query, flats, stride)]).toEqual(want);
      expect([...slow.dots(query, flats, stride)]).toEqual(want);
    }
  });

  it('stays exact at the extremes (all -128 against all -128 and +127) and grows its memory for large inputs', () => {
    const fast = simd();
    const dimension = 1536;
    const stride = int8Stride(dimension);
    const query = new Int8Array(dimension).fill(-128);
    const low = codes(3, dimension, () => -128);
    const high = codes(3, dimension, () => 127);
    expect([...fast.dots(query, [low.flat, high.flat], stride)]).toEqual([
      ...Array(3).fill(128 * 128 * dimension),
      ...Array(3).fill(-128 * 127 * dimension),
    ]);
    // 6,000 rows × 1,536 bytes: 9 MB, well past the module's first 64 KiB page.
    const many = codes(6_000, dimension);
    const q = Int8Array.from({ length: dimension }, int8);
    expect([...fast.dots(q, [many.flat], stride)]).toEqual(reference(q, many.rows));
    // Smaller calls after the memory grew still see only their own rows.
    expect([...fast.dots(q, [many.flat.subarray(0, stride * 2)], stride)]).toEqual(reference(q, many.rows.slice(0, 2)));
  });

  it('refuses a stride that is not a multiple of 16', () => {
    expect(() => simd().dots(new Int8Array(10), [new Int8Array(10)], 10)).toThrow(/multiple of 16/);
  });
});
