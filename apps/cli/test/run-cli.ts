import type { Io } from '../src/io.js';
import { run } from '../src/main.js';

/** Run the CLI in process with captured output, in `cwd`, with the given environment (no stdin unless given). */
export async function runCli(args: string[], cwd: string, env: Record<string, string>, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    readStdin: async () => stdin,
    env,
    cwd,
  };
  const code = await run(args, io);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
