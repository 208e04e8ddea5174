// Shared vitest options: tests read source through the `dev-source` export condition.
// When MEM_TEST_REPORT_DIR is set (CI), each package also writes a JSON report there, which .ci/run counts.
import { basename } from 'node:path';

export function base(overrides = {}) {
  const { test = {}, ...rest } = overrides;
  const reportDir = process.env.MEM_TEST_REPORT_DIR;
  const reporting = reportDir
    ? {
        reporters: ['default', 'json'],
        outputFile: { json: `${reportDir}/${basename(process.cwd())}${process.env.MEM_TEST_REPORT_SUFFIX ?? ''}.json` },
      }
    : {};
  return {
    resolve: { conditions: ['dev-source'] },
    ssr: { resolve: { conditions: ['dev-source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      ...reporting,
      ...test,
    },
    ...rest,
  };
}
