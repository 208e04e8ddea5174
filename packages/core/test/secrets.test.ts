import { describe, expect, it } from 'vitest';
import { assertNoSecrets, findSecrets, redactSecrets } from '../src/domain/secrets.js';
import { MemError } from '../src/errors.js';

const samples: [string, string][] = [
  ['aws-access-key-id', 'key AKIAIOSFODNN7EXAMPLE here'],
  ['aws-secret-access-key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['github-token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
  ['github-fine-grained-token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
  ['gitlab-token', 'glpat-abcdefghij0123456789'],
  ['slack-token', 'xoxb-123456789012-1234567890123-abcdefghijklmnop'],
  ['slack-webhook', 'https://hooks.slack.com/services/T0000000/B0000000/abcdefghijklmnop'],
  ['anthropic-api-key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789'],
  ['openai-api-key', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD'],
  ['google-api-key', 'AIzaSyA1234567890abcdefghijklmnopqrstuv'],
  ['stripe-key', 'sk_live_abcdefghijklmnop1234'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  [
    'private-key',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gt',
  ],
  ['url-credentials', 'postgres://admin:s3cret@db:5432/app'],
  ['password-assignment', 'password=hunter2hunter2'],
  ['npm-token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
  ['huggingface-token', 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH'],
];

describe('secret detection', () => {
  it.each(samples)('finds %s', (kind, text) => {
    expect(findSecrets(text).map((f) => f.kind)).toContain(kind);
  });

  it('refuses without echoing the value and says where', () => {
    try {
      assertNoSecrets('line one\nthe key is AKIAIOSFODNN7EXAMPLE ok');
      expect.unreachable();
    } catch (e) {
      expect(MemError.is(e, 'SECRET_DETECTED')).toBe(true);
      expect((e as Error).message).toContain('line 2, column 12');
      expect((e as Error).message).not.toContain('AKIAIOSFODNN7EXAMPLE');
    }
  });

  it('leaves ordinary prose and placeholders alone', () => {
    for (const t of [
      'I set the password policy to require 12 characters.',
      'Use postgres://localhost:5432/app for local dev.',
      'password: <your password>',
      'Connect with postgres://user:${PGPASSWORD}@db/app',
      'The sk-learn library and the AKIA prefix are documented.',
      'Caroline: I went to the LGBTQ support group yesterday and it was so powerful.',
    ]) {
      expect(findSecrets(t), t).toEqual([]);
    }
  });

  it('redacts in place', () => {
    expect(redactSecrets('token ghp_abcdefghijklmnopqrstuvwxyz0123456789 end')).toBe(
      'token [REDACTED:github-token] end',
    );
  });
});
