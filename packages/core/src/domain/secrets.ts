import { MemError } from '../errors.js';

/** One detection rule: a kind name, a human label and a pattern. `group` picks the secret part when not the whole match. */
export interface SecretRule {
  kind: string;
  /** `secret` (credentials: always refused) or `personal` (personal data: refused, redacted or allowed by policy). */
  category?: 'secret' | 'personal';
  label: string;
  pattern: RegExp;
  group?: number;
  /** Optional extra check on the matched value (e.g. not a placeholder). */
  accept?: (value: string) => boolean;
}

const notPlaceholder = (v: string): boolean =>
  !/^(?:\*+|x+|\.{3,}|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[A-Z_]+%|\$[A-Z_][A-Z0-9_]*|changeme|password|redacted|\[redacted[^\]]*\])$/i.test(
    v,
  );

/**
 * The rule set. Patterns follow the documented formats of each provider's credentials.
 * Order matters only for overlapping kinds: the more specific rule comes first.
 */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    kind: 'private-key',
    label: 'private key block',
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
  },
  { kind: 'aws-access-key-id', label: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  {
    kind: 'aws-secret-access-key',
    label: 'AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
  { kind: 'github-token', label: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  {
    kind: 'github-fine-grained-token',
    label: 'GitHub fine-grained token',
    pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  },
  { kind: 'gitlab-token', label: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', label: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  {
    kind: 'slack-webhook',
    label: 'Slack webhook URL',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/g,
  },
  {
    kind: 'discord-webhook',
    label: 'Discord webhook URL',
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g,
  },
  { kind: 'telegram-bot-token', label: 'Telegram bot token', pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  {
    // base64 of the bot's user id (starts M, N or O), a timestamp part, then the HMAC.
    kind: 'discord-bot-token',
    label: 'Discord bot token',
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
  },
  { kind: 'anthropic-api-key', label: 'Anthropic API key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'openai-api-key',
    label: 'OpenAI-style API key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g,
  },
  { kind: 'groq-api-key', label: 'Groq API key', pattern: /\bgsk_[A-Za-z0-9]{48,}\b/g },
  { kind: 'xai-api-key', label: 'xAI API key', pattern: /\bxai-[A-Za-z0-9]{70,}\b/g },
  { kind: 'perplexity-api-key', label: 'Perplexity API key', pattern: /\bpplx-[A-Za-z0-9]{40,}\b/g },
  { kind: 'replicate-api-token', label: 'Replicate API token', pattern: /\br8_[A-Za-z0-9]{37}\b/g },
  { kind: 'huggingface-token', label: 'Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{34,}\b/g },
  { kind: 'google-api-key', label: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'google-oauth-token', label: 'Google OAuth access token', pattern: /\bya29\.[0-9A-Za-z_-]{30,}/g },
  { kind: 'stripe-key', label: 'Stripe secret key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: 'twilio-api-key', label: 'Twilio API key', pattern: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'sendgrid-api-key', label: 'SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'mailgun-api-key', label: 'Mailgun API key', pattern: /\bkey-[0-9a-f]{32}\b/g },
  { kind: 'npm-token', label: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'pypi-token', label: 'PyPI token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { kind: 'digitalocean-token', label: 'DigitalOcean token', pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: 'shopify-token', label: 'Shopify token', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { kind: 'square-token', label: 'Square token', pattern: /\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}\b/g },
  { kind: 'linear-api-key', label: 'Linear API key', pattern: /\blin_api_[A-Za-z0-9]{40}\b/g },
  { kind: 'databricks-token', label: 'Databricks token', pattern: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g },
  { kind: 'vault-token', label: 'HashiCorp Vault token', pattern: /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g },
  { kind: 'age-secret-key', label: 'age secret key', pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g },
  {
    kind: 'azure-storage-key',
    label: 'Azure storage account key',
    pattern: /AccountKey=([A-Za-z0-9+/]{86}==)/g,
    group: 1,
  },
  {
    kind: 'jwt',
    label: 'JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    kind: 'authorization-header',
    label: 'Authorization header credential',
    // Basic carries base64 of user:password, which can be as short as 4 characters; bearer tokens are longer.
    pattern:
      /\b(?:Proxy-)?Authorization:\s*(?:Basic\s+([A-Za-z0-9+/]{4,}={0,2})|(?:Bearer|Token)\s+([A-Za-z0-9._~+/=-]{12,}))/gi,
    group: 1,
  },
  {
    kind: 'url-credentials',
    label: 'connection string or URL with credentials',
    // The user may be empty (`redis://:password@host/0`).
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/([^\s:/@'"]*):([^\s@/'"]+)@[^\s/'"]+/gi,
    group: 2,
    accept: notPlaceholder,
  },
  {
    kind: 'password-assignment',
    label: 'password or secret assignment',
    // The name may be part of a longer one joined by `_` or `-` (`DB_PASSWORD`, `MYSQL_ROOT_PASSWORD`, `DD_API_KEY`,
    // the `DD-API-KEY:` header form), with `export` or quotes around it.
    pattern:
      /(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key|private[_-]?key)["']?\s*(?:=|:=|:)\s*["']?([^\s"',;]{6,})/gi,
    group: 1,
    accept: notPlaceholder,
  },
];

export interface SecretFinding {
  kind: string;
  label: string;
  category: 'secret' | 'personal';
  /** 1-based line and column where the secret starts. */
  line: number;
  column: number;
  /** Offset and length in the scanned text (for redaction). */
  index: number;
  length: number;
}

/** 1-based line and column of an offset in a text. */
export function textPosition(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lastNl = -1;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastNl = i;
    }
  }
  return { line, column: index - lastNl };
}

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
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g,
    accept: ibanValid,
  },
];

/** What to do with personal data (payment cards, IBANs) in a space. */
export type PersonalDataPolicy = 'refuse' | 'redact' | 'allow';
export const PERSONAL_DATA_POLICIES: readonly PersonalDataPolicy[] = ['refuse', 'redact', 'allow'];

// Zero-width characters, bidi controls and the soft hyphen: invisible, and able to split a key so no rule sees it.
const SCAN_INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * The text as the rules see it: NFKC (full-width and other compatibility forms folded), without zero-width and bidi
 * controls. Every scan runs on this form; findings (line, column, index) refer to it.
 */
export function normalizeForScan(text: string): string {
  return text.normalize('NFKC').replace(SCAN_INVISIBLE, '');
}

/**
 * Each rule's pattern with the global flag, compiled once. `findSecrets` walks it with `exec` from `lastIndex` 0 and
 * runs to the end without yielding, so sharing it is safe; `matchAll` would clone the expression on every call, and
 * that cloning cost more than the scan itself on short texts.
 */
const GLOBAL_PATTERNS = new WeakMap<SecretRule, RegExp>();

function globalPattern(rule: SecretRule): RegExp {
  let re = GLOBAL_PATTERNS.get(rule);
  if (re === undefined) {
    re = new RegExp(
      rule.pattern.source,
      rule.pattern.flags.includes('g') ? rule.pattern.flags : `${rule.pattern.flags}g`,
    );
    GLOBAL_PATTERNS.set(rule, re);
  }
  return re;
}

/**
 * Find secrets in a text (normalised first, see `normalizeForScan`). Overlapping findings keep the earliest, most
 * specific rule.
 */
export function findSecrets(raw: string, rules: readonly SecretRule[] = SECRET_RULES): SecretFinding[] {
  const text = normalizeForScan(raw);
  const found: SecretFinding[] = [];
  for (const rule of rules) {
    const re = globalPattern(rule);
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      // An empty match would match again at the same place: step past it.
      if (m[0].length === 0) re.lastIndex++;
      // A rule with a group and alternatives takes the first group that matched from `group` on.
      const value = rule.group !== undefined ? m.slice(rule.group).find((g) => g !== undefined) : m[0];
      if (value === undefined) continue;
      if (rule.accept && !rule.accept(value)) continue;
      const index = (m.index ?? 0) + (rule.group !== undefined ? m[0].indexOf(value) : 0);
      if (found.some((f) => index < f.index + f.length && f.index < index + value.length)) continue;
      found.push({
        kind: rule.kind,
        label: rule.label,
        category: rule.category ?? 'secret',
        ...textPosition(text, index),
        index,
        length: value.length,
      });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * Refuse a text holding a secret: `SECRET_DETECTED` naming the kind(s) and where, never the value.
 * `what` names the field for the message ("content", "notebook MEMORY.md", "fact value").
 */
export function assertNoSecrets(text: string, what = 'content', rules: readonly SecretRule[] = SECRET_RULES): void {
  const findings = findSecrets(text, rules);
  if (findings.length > 0) throw secretRefusal(what, findings);
}

/** Where a secret was found, for a refusal: its kind, label and position, and the scanner that found it if not mem. */
export interface SecretLocation {
  kind: string;
  label: string;
  line: number;
  column: number;
  /** The id of the scanner (`SecretScanner.id`) that found it; absent for mem's own rules. */
  scanner?: string;
}

/**
 * The one `SECRET_DETECTED` refusal, for mem's own rules and for a stack's secret scanner alike: it names the kind(s),
 * where, and which scanner found them, never the value.
 */
export function secretRefusal(what: string, found: readonly SecretLocation[]): MemError {
  const where = found
    .slice(0, 5)
    .map(
      (f) =>
        `${f.label} (${f.kind}${f.scanner === undefined ? '' : `, found by ${f.scanner}`}) at line ${f.line}, column ${f.column}`,
    )
    .join('; ');
  return new MemError(
    'SECRET_DETECTED',
    `Refused: the ${what} contains ${found.length === 1 ? 'a secret' : `${found.length} secrets`}: ${where}. Memory must never hold credentials: remove the secret (or replace it with a reference such as "the key in the team vault") and store again.`,
    {
      details: {
        findings: found.map(({ kind, line, column, scanner }) =>
          scanner === undefined ? { kind, line, column } : { kind, line, column, scanner },
        ),
      },
    },
  );
}

/** Replace each range (sorted, not overlapping) of a text by `[REDACTED:<kind>]`. */
export function redactRanges(text: string, ranges: readonly { kind: string; index: number; length: number }[]): string {
  let out = '';
  let at = 0;
  for (const f of ranges) {
    out += `${text.slice(at, f.index)}[REDACTED:${f.kind}]`;
    at = f.index + f.length;
  }
  return out + text.slice(at);
}

/**
 * Replace every secret by `[REDACTED:<kind>]` (used for transcripts, which must not refuse a turn). A text with a
 * finding comes back in its normalised form (see `normalizeForScan`); a clean text comes back unchanged.
 */
export function redactSecrets(text: string, rules: readonly SecretRule[] = SECRET_RULES): string {
  const findings = findSecrets(text, rules);
  if (findings.length === 0) return text;
  return redactRanges(normalizeForScan(text), findings);
}

/**
 * The one guard of every free-text field written to memory (content, names, tags, keys, edit intents, rating notes,
 * task ids, episode tools, fact user/topic/key/value, notebook files and file names): a secret is refused with
 * `SECRET_DETECTED`; personal data (payment cards, IBANs) is refused with `PERSONAL_DATA_DETECTED`, redacted, or
 * allowed, by `personalData` (default refuse). Returns the text to store. `what` names the field in messages.
 */
export function guardText(text: string, what: string, personalData: PersonalDataPolicy = 'refuse'): string {
  assertNoSecrets(text, what);
  if (personalData === 'allow') return text;
  const findings = findSecrets(text, PERSONAL_DATA_RULES);
  if (findings.length === 0) return text;
  if (personalData === 'redact') return redactSecrets(text, PERSONAL_DATA_RULES);
  const where = findings
    .slice(0, 5)
    .map((f) => `${f.label} (${f.kind}) at line ${f.line}, column ${f.column}`)
    .join('; ');
  throw new MemError(
    'PERSONAL_DATA_DETECTED',
    `Refused: the ${what} contains personal data: ${where}. Payment card numbers and bank account numbers are not kept in memory in this space: leave the number out (e.g. "the card ending 4242"), or ask the operator to set the space's personal-data policy to redact or allow.`,
    { details: { findings: findings.map(({ kind, line, column }) => ({ kind, line, column })) } },
  );
}

/** `guardText` over several fields at once (undefined and null are skipped); returns nothing, throws on the first. */
export function guardFields(
  fields: Record<string, string | null | undefined | readonly string[]>,
  personalData: PersonalDataPolicy = 'refuse',
): void {
  for (const [what, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) guardText(v, what, personalData);
  }
}

/** The personal-data setting of a stack: one policy for every space, or a default with per-space exceptions. */
export type PersonalDataSetting =
  | PersonalDataPolicy
  | { default?: PersonalDataPolicy; spaces?: Readonly<Record<string, PersonalDataPolicy>> };

/** The policy of one space under a setting (refuse when nothing is set). */
export function personalDataPolicy(setting: PersonalDataSetting | undefined, space: string): PersonalDataPolicy {
  if (setting === undefined) return 'refuse';
  if (typeof setting === 'string') return setting;
  return setting.spaces?.[space] ?? setting.default ?? 'refuse';
}
