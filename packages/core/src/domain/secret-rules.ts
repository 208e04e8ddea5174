/**
 * The detection rules of mem's own secret scanner, and the judges of the values they find.
 *
 * Every pattern is written to run in time linear in its input on a backtracking engine, by three rules of
 * construction (the fuzz test in test/secrets-linear.test.ts feeds each rule its own prefixes, runs and alternations
 * at 1× and 8× size and checks the growth):
 * 1. No nested unbounded quantifier: a repetition inside a repetition is bounded and its parts are separated by a
 *    character the inner part cannot match, so there is one way to match it.
 * 2. A match may not start inside the run of characters a previous start could have consumed: a look-behind refuses
 *    a start right after a character of the rule's own run class, so the runs scanned from two starts never overlap.
 * 3. A run that ends the pattern is followed by nothing that can fail (a look-ahead for a character outside the run's
 *    class always holds after a greedy run), and every run has an upper bound.
 */

/** One detection rule: a kind name, a human label and a pattern. `group` picks the secret part when not the whole match. */
export interface SecretRule {
  kind: string;
  /** `secret` (credentials: always refused) or `personal` (personal data: refused, redacted or allowed by policy). */
  category?: 'secret' | 'personal';
  label: string;
  pattern: RegExp;
  group?: number;
  /**
   * A cheap test before the pattern runs: when the text has no match of it, the rule cannot match and is not run
   * (`/pass|secret|token/i` for assignments, `/:\/\//` for URLs). A plain word or alternation: linear.
   */
  hint?: RegExp;
  /**
   * Optional extra check on the matched value (e.g. not a placeholder); `match` and `text` let it look at what
   * surrounds the value (the quote it opened with, the character after it).
   */
  accept?: (value: string, match: RegExpExecArray, text: string) => boolean;
}

const PLACEHOLDER =
  /^(?:\*+|x+|X+|\.{3,}|_+|-+|#+|<[^>]{0,200}>|\$\{[^}]{0,200}\}|\{\{[^}]{0,200}\}\}|\{[^}]{0,200}\}|%[A-Za-z_]{1,60}%|%\([a-z_]{1,60}\)s|%s|\$[A-Za-z_][A-Za-z0-9_]{0,80}|\$\d|changeme|change[_-]?me|password|secret|redacted|\[redacted[^\]]{0,60}\]|your[_-]?\w{0,40}|my[_-]?(?:password|secret|token|key)|example\w{0,20}|dummy\w{0,20}|placeholder|none|null|nil|undefined|empty|hidden|masked|omitted)$/i;

/** An obvious placeholder: `****`, `xxxx`, `<your password>`, `${DB_PASSWORD}`, `$PGPASSWORD`, `changeme`, … */
export const notPlaceholder = (v: string): boolean => !PLACEHOLDER.test(v);

/** Names of types and language words that follow a field name in code (`password: string`, `secret = None`). */
const CODE_WORDS = new Set(
  (
    'string str number int integer bool boolean any object null none nil undefined true false required optional bytes ' +
    'char text varchar secretstr secretbytes unknown never void hidden masked omitted nullable function lambda await new ' +
    'self this super input prompt getpass'
  ).split(' '),
);
/** Words a field name is made of: a quoted string of these (`"new-password"`, `'api_key'`) names a field. */
const FIELD_WORD = /pass|pwd|secret|token|key|auth|cred|hash|salt|cipher|otp|pin/i;

/**
 * Whether an unquoted value is a reference rather than a literal: a call or index (`data.get(`, `request.form[`), a
 * member path (`form.password.data`, `config?.apiKey`, `this.#options.token`, `process.env.TOKEN!`), an environment
 * lookup or template (`$DB_PASSWORD`, `%APPDATA%`, `${…}`), a generic type (`z.ZodOptional<z.ZodString>`), a type or
 * language word (`string`, `None`), or a name (`newPassword`, `hashed_password`, `DB_PASSWORD`, any word of letters
 * alone). `after` is the character that follows the value in the text.
 */
export function referenceValue(value: string, after = ''): boolean {
  if (/[()[\]{}<>]/.test(value) || /^[$%&*@#!]/.test(value)) return true;
  if (after === '(' || after === '[' || after === '<') return true;
  // An expression (`fe?T:void`, `a||b`, `a=b`; base64 padding `==` at the end is not one), a path (`/Users/ada`, `./key.pem`, `~/.ssh`), a hex number (`0x0B96`).
  if (
    /[?:|]/.test(value) ||
    /=[^=]/.test(value) ||
    /^(?:\/|\.{1,2}\/|~\/|[A-Za-z]:\\)/.test(value) ||
    /^0x[0-9a-f]+$/i.test(value)
  )
    return true;
  const bare = value.replace(/[!?/.)]+$/, '');
  if (CODE_WORDS.has(bare.toLowerCase())) return true;
  // A member path of identifiers, with optional chaining, private fields and non-null marks.
  if (/^[A-Za-z_$#][\w$#]*(?:(?:\??\.|->|::|!\.)[A-Za-z_$#][\w$#]*)+$/.test(bare)) return true;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(bare)) {
    if (/^[A-Za-z]+$/.test(bare)) return true; // a word or a name of letters alone
    if (FIELD_WORD.test(bare)) return true;
    if (/[a-z][A-Z]/.test(bare) && !/\d/.test(bare)) return true; // camelCase name
    if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(bare)) return true; // an environment variable's name
    if (/^[a-z]+(?:_[a-z]+)+$/.test(bare)) return true; // snake_case name
  }
  return false;
}

/** A value that is not a credential at all: a placeholder, or text cut short with an ellipsis (`sk-...`). */
const placeholderLike = (v: string): boolean => !notPlaceholder(v) || v.includes('...') || v.includes('…');

/**
 * Whether the value of a `name = value` / `name: value` assignment is a literal credential rather than a reference
 * (`referenceValue`), a placeholder, a field name (`"password_confirmation"`), a word or enum value
 * (`credentials: "same-origin"`) or a quoted sentence (`"Enter your password"`). A literal is judged by its shape: at
 * least 6 characters, and quoted or not, it holds a digit, an upper-case letter or a symbol.
 */
export function literalCredential(value: string, match: RegExpExecArray, text: string): boolean {
  if (value.length < 6 || placeholderLike(value)) return false;
  // The rule's last three groups: the separator (`=`, `:`, `=>`, `:=`), the opening quote (possibly empty), the value.
  const separator = match[match.length - 3] ?? '';
  const quote = match[match.length - 2] ?? '';
  const end = (match.index ?? 0) + match[0].length;
  const after = text[end] ?? '';
  if (quote !== '') {
    // A quoted value that does not close right after the token holds spaces (a sentence) or is cut by a separator.
    // In JSON-escaped text (a tool result) the closing quote is `\"`.
    const closed = after === quote || (after === '\\' && text[end + 1] === quote);
    if (!closed) return (after === ',' || after === ';') && /\d/.test(value);
    if (/^[a-z]+(?:[_-][a-z]+)*$/.test(value)) return false; // a word or an enum value: `same-origin`, `include`
    // A field or property name: `'password_confirmation'`, `'_callApiKey'`, `'newPassword'`.
    if (
      /^[A-Za-z_$][\w$-]*$/.test(value) &&
      (FIELD_WORD.test(value) || (/[a-z][A-Z]/.test(value) && !/\d/.test(value)))
    )
      return false;
    // A URN, URL or path (`'urn:ietf:params:oauth:token-type:jwt'`, `'/etc/ssl/key.pem'`): a URL's own password is
    // the url-credentials rule's.
    if (/^[a-z][a-z0-9+.-]{1,30}:/i.test(value) || /^(?:\/|\.{1,2}\/|~\/)/.test(value)) return false;
    return !/^[$%]/.test(value);
  }
  // In code, `name = identifier` (spaces around `=`) assigns a variable; `NAME=hunter2` in a .env file is a value.
  const sepAt = match.indices?.[match.length - 3]?.[0] ?? -1;
  const spaced = sepAt > 0 && (text[sepAt - 1] === ' ' || text[sepAt - 1] === '\t');
  if ((separator === '=' || separator === ':=') && spaced && /^[A-Za-z_$][\w$]*$/.test(value)) return false;
  return !referenceValue(value, after);
}

/** The value of a credential flag or an unquoted key: not a placeholder and not a reference. */
export function literalValue(value: string, match: RegExpExecArray, text: string): boolean {
  if (placeholderLike(value)) return false;
  return !referenceValue(value, text[(match.index ?? 0) + match[0].length] ?? '');
}

/** A value with the shape of a generated key: 16+ characters mixing letters and digits (or 24+ of mixed case). */
export function keyShaped(value: string, match?: RegExpExecArray, text?: string): boolean {
  if (placeholderLike(value)) return false;
  if (match && text !== undefined && !literalValue(value, match, text)) return false;
  const digits = /\d/.test(value);
  const letters = /[A-Za-z]/.test(value);
  if (digits && letters) return true;
  return value.length >= 24 && /[a-z]/.test(value) && /[A-Z]/.test(value);
}

const credentialValue = (v: string): boolean => notPlaceholder(v) && !/^[$%]/.test(v) && !/^\{.*\}$/.test(v);

/** Hosts of examples and of one's own machine: a letters-only password there is a default, not a leak. */
const EXAMPLE_HOST =
  /^(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host|hostname|example\.(?:com|org|net)|[\w.-]*\.example(?:\.\w+)?|\$\{[^}]*\})(?::|$)/i;
const PLACEHOLDER_PASSWORDS = new Set(['pass', 'passwd', 'password', 'pwd', 'pw', 'secret', 'changeme']);

/**
 * The password of a URL (`scheme://user:password@host`): not a placeholder or reference, at least 4 characters, not a
 * placeholder word (`user:pass@`), and not a letters-only default on a local or example host
 * (`postgres://postgres:postgres@localhost`).
 */
export function urlPassword(value: string, match: RegExpExecArray): boolean {
  if (!credentialValue(value) || value.length < 4 || PLACEHOLDER_PASSWORDS.has(value.toLowerCase())) return false;
  const host = match[0].slice(match[0].lastIndexOf('@') + 1);
  return !(/^[A-Za-z]+$/.test(value) && EXAMPLE_HOST.test(host));
}

/** The password of a DSN (`user:password@tcp(…)`): as a URL's, and never a letters-only word (`user:pass@/db`). */
export function dsnPassword(value: string): boolean {
  return (
    credentialValue(value) &&
    value.length >= 4 &&
    !PLACEHOLDER_PASSWORDS.has(value.toLowerCase()) &&
    !/^[A-Za-z]+$/.test(value)
  );
}

/**
 * A private key header is a secret only with key material after it (16+ base64 characters in the next lines, quoted
 * and concatenated or not, or the key's END line): the header alone (`"-----BEGIN PRIVATE KEY-----"` in a parser) names a format.
 */
export function keyMaterialFollows(_value: string, match: RegExpExecArray, text: string): boolean {
  const end = (match.index ?? 0) + match[0].length;
  const window = text.slice(end, end + 400);
  const next = window.replace(/\\{1,8}[nr]|\\|["'`+,\s]|[A-Za-z-]{1,40}: [^\n]{0,120}\n/g, '');
  return (
    /^[A-Za-z0-9+/=]{16}/.test(next) ||
    /END[ \t]{1,8}(?:[A-Z0-9]{1,16}[ \t]{1,8}){0,4}PRIVATE[ \t]{1,8}KEY/i.test(window)
  );
}

// The names an assignment of a credential goes by, with the glued names of common tools (PGPASSWORD, DBPASSWORD).
const CREDENTIAL_NAMES =
  '(?:pg|db|root|admin|user|app|mysql|redis|smtp|mail|ftp|ssh|sql|api|my|new|old)?password|passwd|pwd|pass|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key|private[_-]?key|token|credentials?';

/**
 * The rule set. Patterns follow the documented formats of each provider's credentials.
 * Order matters only for overlapping kinds: the more specific rule comes first.
 */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    kind: 'private-key',
    hint: /private/i,
    label: 'private key block',
    // Any spacing and case: `-----BEGIN RSA PRIVATE KEY-----`, `----- begin  private key -----`.
    pattern:
      /(?<!-)-{3,64}[ \t]{0,8}BEGIN[ \t]{1,8}(?:[A-Z0-9]{1,16}[ \t]{1,8}){0,4}PRIVATE[ \t]{1,8}KEY(?:[ \t]{1,8}BLOCK)?[ \t]{0,8}-{3,64}/gi,
    accept: keyMaterialFollows,
  },
  { kind: 'putty-private-key', label: 'PuTTY private key file', pattern: /\bPuTTY-User-Key-File-\d{1,2}:/gi },
  {
    kind: 'mem-api-key',
    label: 'mem API key',
    hint: /mem_/,
    pattern: /(?<![A-Za-z0-9_-])mem_[0-9a-f]{16}_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'aws-access-key-id',
    label: 'AWS access key id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'aws-secret-access-key',
    hint: /secret/i,
    label: 'AWS secret access key',
    pattern:
      /(?<![A-Za-z0-9])aws_?secret_?access_?key["']?[ \t]{0,8}[:=][ \t]{0,8}["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
  {
    kind: 'github-token',
    label: 'GitHub token',
    pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'github-fine-grained-token',
    label: 'GitHub fine-grained token',
    pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_])/g,
  },
  { kind: 'gitlab-token', label: 'GitLab token', pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,255}/g },
  {
    kind: 'slack-token',
    label: 'Slack token',
    pattern: /(?<![A-Za-z0-9_-])xox[abposr]-[A-Za-z0-9-]{10,255}/g,
    // Real tokens carry numeric ids (`xoxb-123…-456…-…`); `xoxb-your-slack-token` is a placeholder.
    accept: (v) => /\d/.test(v),
  },
  {
    kind: 'slack-webhook',
    label: 'Slack webhook URL',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{1,32}\/B[A-Z0-9]{1,32}\/[A-Za-z0-9]{1,64}/g,
  },
  {
    kind: 'discord-webhook',
    label: 'Discord webhook URL',
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{1,24}\/[A-Za-z0-9_-]{20,255}/g,
  },
  {
    kind: 'telegram-bot-token',
    label: 'Telegram bot token',
    pattern: /(?<![A-Za-z0-9_:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g,
  },
  {
    // base64 of the bot's user id (starts M, N or O), a timestamp part, then the HMAC.
    kind: 'discord-bot-token',
    label: 'Discord bot token',
    pattern: /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'anthropic-api-key',
    label: 'Anthropic API key',
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,255}/g,
  },
  {
    kind: 'openai-api-key',
    label: 'OpenAI-style API key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,255}/g,
  },
  { kind: 'groq-api-key', label: 'Groq API key', pattern: /(?<![A-Za-z0-9_])gsk_[A-Za-z0-9]{48,128}(?![A-Za-z0-9])/g },
  { kind: 'xai-api-key', label: 'xAI API key', pattern: /(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{70,128}(?![A-Za-z0-9])/g },
  {
    kind: 'perplexity-api-key',
    label: 'Perplexity API key',
    pattern: /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{40,128}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'replicate-api-token',
    label: 'Replicate API token',
    pattern: /(?<![A-Za-z0-9_])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'huggingface-token',
    label: 'Hugging Face token',
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{34,128}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'google-api-key',
    label: 'Google API key',
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  },
  {
    kind: 'google-oauth-token',
    label: 'Google OAuth access token',
    pattern: /(?<![A-Za-z0-9_.-])ya29\.[0-9A-Za-z_-]{30,2048}/g,
  },
  {
    kind: 'stripe-key',
    label: 'Stripe secret key',
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}(?![A-Za-z0-9])/g,
  },
  { kind: 'twilio-api-key', label: 'Twilio API key', pattern: /(?<![A-Za-z0-9_])SK[0-9a-f]{32}(?![A-Za-z0-9])/g },
  {
    kind: 'sendgrid-api-key',
    label: 'SendGrid API key',
    pattern: /(?<![A-Za-z0-9_.-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  },
  { kind: 'mailgun-api-key', label: 'Mailgun API key', pattern: /(?<![A-Za-z0-9_-])key-[0-9a-f]{32}(?![A-Za-z0-9])/g },
  { kind: 'npm-token', label: 'npm token', pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  {
    kind: 'pypi-token',
    label: 'PyPI token',
    pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,512}/g,
  },
  {
    kind: 'digitalocean-token',
    label: 'DigitalOcean token',
    pattern: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'shopify-token',
    label: 'Shopify token',
    pattern: /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'square-token',
    label: 'Square token',
    pattern: /(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'linear-api-key',
    label: 'Linear API key',
    pattern: /(?<![A-Za-z0-9_])lin_api_[A-Za-z0-9]{40}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'databricks-token',
    label: 'Databricks token',
    pattern: /(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])/g,
  },
  { kind: 'vault-token', label: 'HashiCorp Vault token', pattern: /(?<![A-Za-z0-9_.-])hv[sb]\.[A-Za-z0-9_-]{24,512}/g },
  {
    kind: 'age-secret-key',
    label: 'age secret key',
    pattern: /(?<![A-Za-z0-9_-])AGE-SECRET-KEY-1[0-9A-Z]{58}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'alibaba-access-key-id',
    label: 'Alibaba Cloud access key id',
    pattern: /(?<![A-Za-z0-9_])LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])/g,
  },
  {
    kind: 'azure-storage-key',
    label: 'Azure storage account key',
    pattern: /(?<![A-Za-z0-9])AccountKey=([A-Za-z0-9+/]{86}==)/g,
    group: 1,
  },
  {
    kind: 'connection-string-key',
    hint: /key|secret/i,
    label: 'connection string key',
    // Azure Service Bus / Event Hubs / IoT Hub `SharedAccessKey=`, Cosmos `AccountKey=`, MinIO and S3-style
    // `AccessKey=` / `SecretKey=`, `MasterKey`, `AppSecret`, `ConsumerSecret`, signing and encryption keys.
    pattern:
      /(?<![A-Za-z0-9])(?:Shared[_-]?Access[_-]?Key|Account[_-]?Key|Access[_-]?Key(?:[_-]?Secret)?|Secret[_-]?Access[_-]?Key|Master[_-]?Key|Primary[_-]?Key|Secondary[_-]?Key|Signing[_-]?Key|Encryption[_-]?Key|Api[_-]?Secret|App[_-]?Secret|Consumer[_-]?Secret)\\?["']?[ \t]{0,8}[=:][ \t]{0,8}\\?["']?([A-Za-z0-9+/_~.-]{16,512}={0,2})(?![A-Za-z0-9+/_~.=-])/gi,
    group: 1,
    accept: keyShaped,
  },
  {
    kind: 'shared-access-signature',
    hint: /sig/i,
    label: 'shared access signature (signed URL)',
    // Azure SAS `sig=`, AWS presigned `X-Amz-Signature=`, Google Cloud signed URL `X-Goog-Signature=`.
    pattern:
      /(?<=[?&;])(?:sig=([A-Za-z0-9%+/]{30,256}(?:%3D|=){0,2})|X-Amz-Signature=([0-9a-f]{64})|X-Goog-Signature=([0-9a-f]{64,1024}))(?![A-Za-z0-9%+/=])/gi,
    group: 1,
  },
  {
    kind: 'jwt',
    label: 'JSON Web Token',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,8192}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,8192}/g,
  },
  {
    kind: 'authorization-header',
    hint: /authorization/i,
    label: 'Authorization header credential',
    // Basic carries base64 of user:password, which can be as short as 4 characters; bearer tokens are longer.
    pattern:
      /(?<![A-Za-z0-9-])(?:Proxy-)?Authorization["']?[ \t]{0,8}:[ \t]{0,8}(?:Basic[ \t]{1,8}([A-Za-z0-9+/]{4,4096}={0,2})|(?:Bearer|Token)[ \t]{1,8}([A-Za-z0-9._~+/=-]{12,8192}))/gi,
    group: 1,
    accept: credentialValue,
  },
  {
    kind: 'url-credentials',
    label: 'connection string or URL with credentials',
    // The user may be empty (`redis://:password@host/0`).
    pattern: /(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}:\/\/([^\s:/@'"]{0,256}):([^\s@/'"]{1,512})@[^\s/'"@]{1,256}/gi,
    group: 2,
    hint: /:\/\//,
    accept: urlPassword,
  },
  {
    kind: 'dsn-credentials',
    label: 'DSN with a password',
    // Go's MySQL DSN and its kin: `user:password@tcp(host:3306)/db`, `user:password@unix(/tmp/mysql.sock)/db`, `user:password@/db`.
    pattern: /(?<![A-Za-z0-9_.%+:-])[A-Za-z0-9_.%+-]{1,64}:([^\s@:/'"()]{1,128})@(?:(?:tcp|tcp6|udp|unix|tls)\(|\/)/gi,
    group: 1,
    hint: /@(?:tcp6?\(|udp\(|unix\(|tls\(|\/)/i,
    accept: dsnPassword,
  },
  {
    kind: 'command-line-credentials',
    hint: /-u|--|-p/i,
    label: 'credential on a command line',
    // `curl -u user:password`, `--user user:password`, `--password secret`, `mysql -u root -psecret` (glued: `-p` alone prompts), `sshpass -p secret`.
    pattern:
      /(?<![A-Za-z0-9_-])(?:(?:-u|--user|--basic-auth|--proxy-user)(?:[ \t]{1,8}|=)["']?[^\s:"'@]{1,64}:([^\s"']{3,256})|--(?:password|passwd|pass|token|api-?key|secret|auth-token|access-token)(?:[ \t]{1,8}|=)["']?([^\s"']{4,256})|-p(?<=(?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n]{0,200}-p)["']?([^\s"'-][^\s"']{3,127})|-p(?<=sshpass[ \t]{1,8}-p)[ \t]{1,8}["']?([^\s"'-][^\s"']{3,127}))/gi,
    group: 1,
    accept: literalValue,
  },
  {
    kind: 'password-assignment',
    hint: /pass|pwd|secret|key|token|credential/i,
    label: 'password or secret assignment',
    // The name may be part of a longer one (`DB_PASSWORD`, `MYSQL_ROOT_PASSWORD`, `DD_API_KEY`, `PGPASSWORD`, the
    // `DD-API-KEY:` header form), with `export` or quotes around it; the value is judged by `literalCredential`.
    pattern: new RegExp(
      `(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,32}[_.-]){0,4}(?:${CREDENTIAL_NAMES})\\\\?["']?[ \\t]{0,8}(=>|:=|=(?!=)|:(?!:))[ \\t]{0,8}\\\\?(["'\`]?)([^\\s"'\`,;\\\\]{1,256})`,
      'gi',
    ),
    group: 3,
    accept: literalCredential,
  },
];

/** Luhn check of a digit string (payment card numbers). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616 check of an IBAN (spaces allowed): the rearranged number mod 97 is 1. */
export function ibanValid(value: string): boolean {
  const iban = value.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const n = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of n) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/** Personal data refused, redacted or allowed by the space's policy (docs/safety.md). */
export const PERSONAL_DATA_RULES: readonly SecretRule[] = [
  {
    kind: 'payment-card',
    label: 'payment card number',
    category: 'personal',
    // 13–19 digits, in groups separated by single spaces or dashes, starting like a card (2–6); Luhn-checked.
    pattern: /(?<![\d-]|\d[.,])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-]|[.,]\d)/g,
    accept: (v) => {
      const digits = v.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
    },
  },
  {
    kind: 'iban',
    label: 'IBAN (bank account number)',
    category: 'personal',
    pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
    accept: ibanValid,
  },
];
