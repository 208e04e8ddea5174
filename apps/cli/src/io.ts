/** Where the CLI reads and writes: the real process, or buffers in tests. */
export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  readStdin(): Promise<string>;
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A progress bar on stderr when it is a terminal; silent otherwise. */
export class Progress {
  private last = 0;
  constructor(
    private readonly io: Io,
    private readonly label: string,
    private total: number | null,
  ) {}

  update(done: number, total?: number): void {
    if (total !== undefined) this.total = total;
    if (!this.io.stderr.isTTY) return;
    const now = Date.now();
    if (now - this.last < 80 && done !== this.total) return;
    this.last = now;
    if (this.total) {
      const width = 30;
      const filled = Math.round((done / this.total) * width);
      this.io.stderr.write(
        `\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${this.total}`,
      );
    } else {
      this.io.stderr.write(`\r${this.label} ${done}`);
    }
  }

  done(): void {
    if (this.io.stderr.isTTY) this.io.stderr.write('\n');
  }
}
