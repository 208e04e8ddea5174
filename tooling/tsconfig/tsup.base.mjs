// Shared tsup options: every package builds ESM + declarations from src/index.ts (override `entry` for more).
export function base(overrides = {}) {
  return {
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    ...overrides,
  };
}
