import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mem = (args: string[]) =>
  runCli(args, dir, { MEM_DB: join(dir, 'mem.db'), MEM_WORKSPACE_DIR: join(dir, 'ws'), MEM_EMBEDDER: 'hashing' });

describe('mem turn / task / session (the runner from the shell)', () => {
  it('assembles a turn, records the answer, stores the task memory that the next task recalls', async () => {
    const first = await mem([
      'turn',
      'context',
      'Rotate the TLS certificates.',
      '--task',
      'rotate TLS certificates',
      '--task-id',
      'T-1',
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().report.written).toBe(1);
    expect((await mem(['turn', 'record', 'Rotated with certbot renew.'])).code).toBe(0);
    const ended = await mem([
      'task',
      'end',
      'To rotate TLS certificates: run certbot renew, then reload nginx.',
      '--task-id',
      'T-1',
      '--json',
    ]);
    expect(ended.code, ended.stderr).toBe(0);
    const id = ended.json().stored.id as string;
    const next = await mem([
      'turn',
      'context',
      'Again please.',
      '--task',
      'rotate TLS certificates',
      '--task-id',
      'T-2',
      '--json',
    ]);
    expect(next.json().report.recalled.map((r: { id: string }) => r.id)).toContain(id);
    const text = next
      .json()
      .messages.map((m: { content: string }) => m.content)
      .join('\n');
    expect(text).toContain('Rotated with certbot renew.');
    const auto = await mem(['task', 'end', 'Heartbeat ok.', '--task-id', 'T-3', '--automatic', '--json']);
    expect(auto.json().stored).toBeNull();
    const session = await mem(['session', 'end', '--json']);
    expect(session.code, session.stderr).toBe(0);
    expect(session.json().stored.id).toBeTruthy();
  });

  it('refuses a missing task id (usage, exit 2) and a bad role (exit 2), writing nothing', async () => {
    const missing = await mem(['task', 'end', 'no id']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--task-id ID is required');
    const badRole = await mem(['turn', 'record', 'x', '--role-of-message', 'wizard']);
    expect(badRole.code).toBe(2);
  });
});
