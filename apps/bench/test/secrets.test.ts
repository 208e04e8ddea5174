/**
 * `mem bench secrets` at a tiny size through the mem command: a code folder and a LoCoMo-shaped file written here (one
 * literal credential, references around it), every figure present, the report written. A smoke test of the command:
 * nothing here bounds a speed.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mem-bench-secrets-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('mem bench secrets', () => {
  it('measures speed, false positives on code and chats, and true positives, and writes its report', async () => {
    const code = join(out, 'node_modules', 'pkg');
    mkdirSync(code, { recursive: true });
    writeFileSync(
      join(code, 'login.py'),
      "password = data.get('password')\nhashed = generate_password_hash(password)\n",
    );
    writeFileSync(join(code, 'config.js'), "export const db = { password: 'Tr0ub4dor&3x' };\n");
    writeFileSync(join(code, 'README.md'), 'password=Tr0ub4dor&3x (not a code file: not read)\n');
    const dataset = join(out, 'tiny.json');
    writeFileSync(
      dataset,
      JSON.stringify([
        {
          sample_id: 'a',
          conversation: {
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [
              { speaker: 'Ann', text: 'My login code reads password = form.password.data', dia_id: 'D1:1' },
              { speaker: 'Bob', text: 'Nice, and the dog is called Biscuit.', dia_id: 'D1:2' },
            ],
          },
          qa: [],
        },
      ]),
    );
    const reports = join(out, 'reports');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        MEM,
        'bench',
        'secrets',
        '--code',
        out,
        '--datasets',
        dataset,
        '--runs',
        '1',
        '--no-secretlint',
        '--json',
        '--out',
        reports,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const r = JSON.parse(stdout);
    expect(r.code.texts).toBe(2);
    expect(r.code.flagged).toBe(1);
    expect(r.code.by_kind).toEqual({ 'password-assignment': 1 });
    expect(r.code.hits).toEqual([{ where: 'node_modules/pkg/config.js', kind: 'password-assignment', line: 1 }]);
    expect(r.datasets).toHaveLength(1);
    expect(r.datasets[0].findings).toBe(0);
    expect(r.speed_us_per_kb).toHaveLength(1);
    expect(r.speed_us_per_kb[0].hostile_worst).toBeGreaterThan(0);
    expect(r.true_positives.rate).toBeGreaterThan(0.95);
    expect(readdirSync(reports).some((f) => f.startsWith('secrets-') && f.endsWith('.md'))).toBe(true);
  });
});
