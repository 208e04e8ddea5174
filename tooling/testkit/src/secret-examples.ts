/**
 * The one table of examples per kind of secret: what is caught and what is not. The tests run every line through the
 * scanner, and docs/safety.md lists the same lines verbatim (packages/core/test/secret-examples.test.ts renders this table and
 * compares), so the docs and the code cannot disagree. Every credential here is made up.
 */
export interface SecretExamples {
  kind: string;
  /** Texts the scanner refuses as this kind. */
  caught: readonly string[];
  /** Texts near it that are not secrets (references, placeholders, code, prose): no finding of any kind. */
  notCaught: readonly string[];
}

export const SECRET_EXAMPLES: readonly SecretExamples[] = [
  {
    kind: 'private-key',
    caught: [
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq3v9tJ2gGx8Y0LyF5PZkQ8vW2nD4sT6uE7mK9rB1cH3jN5pL\n-----END RSA PRIVATE KEY-----',
      '----- begin  openssh private key -----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      '"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n"',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXk2ZcBCADF3vTqYk1pR9sLmN0wB8jH4gU6tE2xC7vA5zQ1oP3iK9nM',
    ],
    notCaught: [
      '-----BEGIN PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----',
      'if (pem.indexOf("-----BEGIN PRIVATE KEY-----") !== 0) throw new Error(\'not PKCS#8\');',
      'the private key is in the team vault',
    ],
  },
  {
    kind: 'putty-private-key',
    caught: ['PuTTY-User-Key-File-3: ssh-ed25519'],
    notCaught: ['a PuTTY key file (.ppk) lives in the vault'],
  },
  {
    kind: 'mem-api-key',
    caught: ['export MEM_API_KEY=mem_8388dbc2755f00a9_LssGwQkLh29VN41iJ5XbpAzcHIlJchC1MeSviDVLzDe'],
    notCaught: ['a key reads mem_<16 hex id>_<43-character secret>'],
  },
  {
    kind: 'aws-access-key-id',
    caught: ['The deploy user is AKIAIOSFODNN7EXAMPLE.'],
    notCaught: ['keys start with AKIA'],
  },
  {
    kind: 'aws-secret-access-key',
    caught: ['aws_secret_access_key = Adl6usMJ6XMah1oD4yWKJdMDz2zjZKwMZx0CPufq'],
    notCaught: ['aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}'],
  },
  {
    kind: 'github-token',
    caught: ['token ghp_4IMOYqx6OFvCeNUc1JTMu0gr7MX3bqb9HGOC'],
    notCaught: ['ghp_ tokens are 40 characters'],
  },
  {
    kind: 'github-fine-grained-token',
    caught: ['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'],
    notCaught: [],
  },
  {
    kind: 'gitlab-token',
    caught: ['glpat-WwOgla77rvzLs3vSLFKw'],
    notCaught: [],
  },
  {
    kind: 'slack-token',
    notCaught: ["const web = new WebClient('xoxb-your-slack-token');"],
    caught: ['xoxb-558208870052-2564457019324-OkOIHVG93kDTJi7zyABhUpmR'],
  },
  {
    kind: 'slack-webhook',
    caught: ['https://hooks.slack.com/services/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'],
    notCaught: ['https://hooks.slack.com/services/...'],
  },
  {
    kind: 'discord-webhook',
    caught: [
      'https://discord.com/api/webhooks/123456789012345678/XoahuftvdM3JrjB8yarAe06Oqx8n8TQtPPaNH7vWqFrbuMZktgafl2kcqSXeftdLawvz',
    ],
    notCaught: [],
  },
  {
    kind: 'telegram-bot-token',
    caught: ['123456789:AAgFwrXQEPMoprP3u2QQpbkpN3QCLH92pBK'],
    notCaught: [],
  },
  {
    kind: 'discord-bot-token',
    caught: ['DISCORD_TOKEN MTAzWQzqqQaiZL9gMlW6umKnNu.GQcaJR.8twRjzeQodtA6i6HBMgUwCQL9PCH8u60uuUgmU'],
    notCaught: [],
  },
  {
    kind: 'anthropic-api-key',
    caught: ['sk-ant-api03-rJQ1MapdWQPhv4ZBQqduB0xZzUf37DF8pTQn2QRt'],
    notCaught: [],
  },
  {
    kind: 'openai-api-key',
    caught: ['sk-proj-I0c9dKBytrbZWNQv84b3Hoee0YRm8MeeikMuINJAvuPSP5Zy'],
    notCaught: ['the sk-learn library'],
  },
  {
    kind: 'groq-api-key',
    caught: ['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'],
    notCaught: [],
  },
  {
    kind: 'xai-api-key',
    caught: ['xai-jxSs8TZeyFTqMjAiDm4fQdCIQ96164mu98EH4HsNcNX5VS0D0H1Z0icPtjq9918GdF1ntrAEIK4cas9X'],
    notCaught: [],
  },
  {
    kind: 'perplexity-api-key',
    caught: ['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'],
    notCaught: [],
  },
  {
    kind: 'replicate-api-token',
    caught: ['r8_T4yK24mTDUBPBMk48EYpY0YbJilG6muKXYuXp'],
    notCaught: [],
  },
  {
    kind: 'huggingface-token',
    caught: ['hf_clSSvFzebvXy2ybYoiXX4oGq9nW15v3TSo'],
    notCaught: [],
  },
  {
    kind: 'google-api-key',
    caught: ['maps key: AIzasCe2YgKzI6jgti5RFWTy9PnEzrAn6FC1OPm'],
    notCaught: [],
  },
  {
    kind: 'google-oauth-token',
    caught: ['ya29.LSyaoOXUgJFZS2WLVAR9dd4TZwbG4Ob9JeiipsOkWZLEbkYOAYq4F4pAguC6'],
    notCaught: [],
  },
  {
    kind: 'stripe-key',
    caught: ['sk_live_49UkRp8hNk1FjNPFaeOIiBJ8'],
    notCaught: ['sk_live_ keys are secret, pk_live_ keys are public'],
  },
  {
    kind: 'twilio-api-key',
    caught: ['SK5a428da6a1524f654865826a836d6e7f'],
    notCaught: [],
  },
  {
    kind: 'sendgrid-api-key',
    caught: ['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'],
    notCaught: [],
  },
  {
    kind: 'mailgun-api-key',
    caught: ['key-f10d0374f3592476a0ff0d5fde10bf9c'],
    notCaught: [],
  },
  {
    kind: 'npm-token',
    caught: ['//registry.npmjs.org/:_authToken=npm_vuA37j5XwoNepwa8suzCFBajzXUF4GAWcJUZ'],
    notCaught: ['//registry.npmjs.org/:_authToken=${NPM_TOKEN}'],
  },
  {
    kind: 'pypi-token',
    caught: ['pypi-AgEIcHlwaS5vcmcOJWbAUii219WOi12I8wdL0RyZ1w13P9478Q867T2osJryxZ2OmKzY75exvD0'],
    notCaught: [],
  },
  {
    kind: 'digitalocean-token',
    caught: ['dop_v1_97c9983354511a97188a88432ab20fa86b2268b7bab0574a731d2cfafab7f40a'],
    notCaught: [],
  },
  {
    kind: 'shopify-token',
    caught: ['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'],
    notCaught: [],
  },
  {
    kind: 'square-token',
    caught: ['sq0atp-GyXDWDQlGQe65xFHu4pYXd'],
    notCaught: [],
  },
  {
    kind: 'linear-api-key',
    caught: ['lin_api_XPhNpe3GdrAMwhwBKIlw2BBvIl0k3qpBMMAzOWot'],
    notCaught: [],
  },
  {
    kind: 'databricks-token',
    caught: ['dapic4d84ae6706b415ff8ade28e3490cb69'],
    notCaught: [],
  },
  {
    kind: 'vault-token',
    caught: ['VAULT_TOKEN is hvs.zmX4iprliFidlMgof0gGbqZYzufZ0IzRADsP8P7G'],
    notCaught: [],
  },
  {
    kind: 'age-secret-key',
    caught: ['AGE-SECRET-KEY-1JXNU3T5AM581OM18LISX3405HRM1FZIFZCCLFDBOI3BNGRE4JA1ZPZC8YD'],
    notCaught: [],
  },
  {
    kind: 'alibaba-access-key-id',
    caught: ['AccessKeyId: LTAI8TDmeyO1pU0Cbg0aMibS'],
    notCaught: [],
  },
  {
    kind: 'azure-storage-key',
    caught: [
      'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=raZuF81mVvmkC2T42W7rpD2GSI5019gfkSg99HK0xeNsZyXnEP5xVwdNnnzWRJg6wVwcW5XRrGUePCAUym3pjj==;',
    ],
    notCaught: [],
  },
  {
    kind: 'connection-string-key',
    caught: [
      'Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=IpjE8JcHu8I31LLXhC51v1JViMJl0jPnfhciPDC6SQm=',
      '"MasterKey": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"',
    ],
    notCaught: [
      'SharedAccessKey=<key>',
      'AccessKey=${MINIO_ACCESS_KEY}',
      'const secretAccessKey = optionalCredentialString(entry.secretAccessKey);',
      'secret_access_key: Config.SecretAccessKey;',
    ],
  },
  {
    kind: 'shared-access-signature',
    caught: [
      'https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-12-31T00:00:00Z&sig=0HFOAjo20J4LsvERxg2AAqqaIRkFZsowaG8pvAtd%3D',
      'https://s3.amazonaws.com/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=98947258fe6c7d37404bc6bd9920c73672a696bc8d2305f3dceaa17d7aabc485',
    ],
    notCaught: ['?sig=...', 'a signed URL expires after 15 minutes'],
  },
  {
    kind: 'jwt',
    caught: [
      'session cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1LTQyIiwibmFtZSI6IkFkYSIsImlhdCI6MTcwMDAwMDAwMH0.Q2w5S3ZtN1Jyb2hCb2x0ZU5pY2VUcnlBZ2Fpbg',
    ],
    notCaught: ['JWTs start with eyJ'],
  },
  {
    kind: 'authorization-header',
    caught: ['Authorization: Bearer 4f9a1c2e7b3d8f6a0e5c', "curl -H 'Authorization: Basic YWRtaW46aHVudGVyMg=='"],
    notCaught: ['Authorization: Bearer $TOKEN', 'Authorization: Bearer <token>'],
  },
  {
    kind: 'url-credentials',
    caught: [
      'DATABASE_URL=postgres://admin:pa55-Word-9@db.internal:5432/app',
      'redis://:s3cretpass@cache:6379/0',
      'https://anonymous:flabada@developer.mozilla.org',
    ],
    notCaught: [
      'postgres://user:${PGPASSWORD}@db/app',
      'Use postgres://localhost:5432/app for local dev.',
      'f"postgresql://{user}:{password}@{host}/{db}"',
      'postgres://user:pass@host:port/db',
      'postgres://postgres:postgres@localhost:5432/app',
      "new URL('https://abc:xyz@example.com')",
    ],
  },
  {
    kind: 'dsn-credentials',
    caught: ['dsn := "app:pa55Word9x@tcp(db.internal:3306)/shop"', 'root:hunter2x@unix(/tmp/mysql.sock)/app'],
    notCaught: ['dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)'],
  },
  {
    kind: 'command-line-credentials',
    caught: [
      'curl -u deploy:s3cr3t-Pa55 https://ci.internal/api',
      'mysql -u root -ps3cr3tPa55 shop',
      'sshpass -p s3cr3tPa55 ssh deploy@web1',
      'gh auth login --token 9f8e7d6c5b4a39281706',
    ],
    notCaught: [
      'curl -u "$USER:$PASS" https://ci.internal/api',
      'mysql -u root -p shop',
      '--password <password>',
      "it('treats the token as valid (--token case)')",
    ],
  },
  {
    kind: 'password-assignment',
    caught: [
      'password=hunter2hunter2',
      "export STAGING_DB_PASSWORD='Tr0ub4dor&3'",
      '"password": "s3cr3t-value"',
      'PGPASSWORD=correcthorse9',
      'DB_PASS=hunter2hunter2',
      "'password' => 'Tr0ub4dor&3'",
    ],
    notCaught: [
      "password = data.get('password')",
      'password = db.Column(db.String(120), nullable=False)',
      "hashed_password = generate_password_hash(password, method='scrypt')",
      "password = request.form['password']",
      'password = os.environ["DB_PASSWORD"]',
      'const apiKey = process.env.OPENAI_API_KEY;',
      'password: string;',
      'api_key: Optional[str] = None',
      'password = form.password.data',
      'secret = settings.SECRET_KEY',
      'token = tokens[i]',
      'placeholder: "Enter your password"',
      'password: <your password>',
      'DB_PASSWORD=${DB_PASSWORD}',
      'if (password !== confirmPassword) return;',
      'I set the password policy to require 12 characters.',
      'fetch(url, { credentials: "same-origin" })',
      'token: process.env.UPSTASH_REDIS_REST_TOKEN!,',
      'apiKey: config?.apiKey,',
      'client_secret: z.ZodOptional<z.ZodString>;',
      'OPENAI_API_KEY: "sk-..."',
      'grant type client_credentials: detected via grant_types',
    ],
  },
];

/** Keys split or dressed by characters that render as nothing (or folded forms): still caught as their kind. */
export const DRESSED_EXAMPLES: readonly { kind: string; how: string; text: string }[] = [
  { kind: 'github-token', how: 'split by a zero-width space', text: 'ghp_4IMOYqx6OFvC\u200beNUc1JTMu0gr7MX3bqb9HGOC' },
  {
    kind: 'github-token',
    how: 'split by a Unicode tag character',
    text: 'ghp_4IMOYqx6OFvC\udb40\udc41eNUc1JTMu0gr7MX3bqb9HGOC',
  },
  {
    kind: 'github-token',
    how: 'split by variation selectors',
    text: 'ghp_4IMOYqx6OFvC\ufe0f\ufe0feNUc1JTMu0gr7MX3bqb9HGOC',
  },
  {
    kind: 'github-token',
    how: 'split by a combining grapheme joiner',
    text: 'ghp_4IMOYqx6OFvC\u034feNUc1JTMu0gr7MX3bqb9HGOC',
  },
  { kind: 'github-token', how: 'split by a Hangul filler', text: 'ghp_4IMOYqx6OFvC\u3164eNUc1JTMu0gr7MX3bqb9HGOC' },
  { kind: 'github-token', how: 'split by a soft hyphen', text: 'ghp_4IMOYqx6OFvC\u00adeNUc1JTMu0gr7MX3bqb9HGOC' },
  { kind: 'aws-access-key-id', how: 'typed in full-width letters', text: '\uff21\uff2b\uff29\uff21IOSFODNN7EXAMPLE' },
];

/** A text as the docs show it: invisible and non-ASCII characters as `\u{…}` escapes, in an inline code span. */
export function shown(text: string): string {
  const escaped = [...text]
    .map((ch) => {
      const cp = ch.codePointAt(0)!;
      return cp < 0x20 || cp > 0x7e ? `\\u{${cp.toString(16).toUpperCase()}}` : ch;
    })
    .join('');
  return escaped.includes('`') ? `\`\` ${escaped} \`\`` : `\`${escaped}\``;
}

/** The Markdown docs/safety.md carries between its `secret-examples` markers. */
export function renderSecretExamples(): string {
  const lines = ['| kind | caught | not caught |', '|---|---|---|'];
  const cell = (xs: readonly string[]) => (xs.length === 0 ? '—' : xs.map(shown).join('<br>').replace(/\|/g, '\\|'));
  for (const e of SECRET_EXAMPLES) lines.push(`| \`${e.kind}\` | ${cell(e.caught)} | ${cell(e.notCaught)} |`);
  lines.push('', 'Dressed keys, caught as their kind:', '');
  for (const d of DRESSED_EXAMPLES) lines.push(`- ${d.how}: ${shown(d.text)} (\`${d.kind}\`)`);
  return lines.join('\n');
}

/**
 * Short units that, repeated, make backtracking rules re-read what they read (word-and-separator runs, prefixes of
 * common credential forms, separators alone).
 */
export const HOSTILE_UNITS: readonly string[] = [
  'a_',
  'ab_',
  'a-',
  'a_b-c.',
  '-',
  '=',
  ':',
  'a=',
  'a:',
  'password',
  'password=',
  'secret:',
  'x://a:',
  'a:b@',
  'a@',
  '://',
  'https://a:',
  'eyJaaaaaaaaa-',
  'eyJ',
  'AKIA',
  'ghp_',
  'xoxb-',
  'sk-',
  'sk_live_',
  'glpat-',
  '"a":"',
  'BEGIN ',
  '-----BEGIN ',
  'Authorization: Basic ',
  'Bearer ',
  'a.b',
  'a/',
  'a%',
  '0',
  'a ',
  'A1',
  'Aa',
  '4111 ',
  'DE12 ',
];
