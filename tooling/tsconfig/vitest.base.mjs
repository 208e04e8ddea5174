// Shared vitest options: tests read source through the `dev-source` export condition.
export function base(overrides = {}) {
  const { test = {}, ...rest } = overrides;
  return {
    resolve: { conditions: ['dev-source'] },
    ssr: { resolve: { conditions: ['dev-source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      ...test,
    },
    ...rest,
  };
}
