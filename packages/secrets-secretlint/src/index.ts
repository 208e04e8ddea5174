/**
 * `@mem/secrets-secretlint`: a mem `SecretScanner` running secretlint's recommended rule preset
 * (@secretlint/secretlint-rule-preset-recommend) in process, beside mem's own rules. No network at scan time.
 */
import type { SecretScanFinding, SecretScanner, SecretScanText } from '@mem/core/adapter';
import { lintSource } from '@secretlint/core';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

const RULE_PREFIX = '@secretlint/secretlint-rule-';

/**
 * Rules of the preset left out: `filter-comments` lets a `secretlint-disable` comment in the text switch the scan off,
 * which a writer of memories must not be able to do.
 */
const DISABLED_RULES = ['@secretlint/secretlint-rule-filter-comments'];

// Between two texts of one call: no rule matches across it (they stop at whitespace, quotes or line ends).
const SEPARATOR = '\n\n\u0000\n\n';

export interface SecretlintScannerOptions {
  /** Further rule ids of the preset to switch off, e.g. `@secretlint/secretlint-rule-basicauth`. */
  disabledRules?: readonly string[];
}

/** The kind mem reports: the rule's short name plus its message id, e.g. `secretlint-slack:SLACK_TOKEN`. */
function kindOf(ruleId: string, messageId: string | undefined): string {
  const rule = ruleId.startsWith(RULE_PREFIX) ? ruleId.slice(RULE_PREFIX.length) : ruleId;
  return `secretlint-${rule}${messageId ? `:${messageId}` : ''}`;
}

/** A label naming what was found, without the value (secretlint's own message quotes the secret, masked or not). */
function labelOf(ruleId: string, messageId: string | undefined): string {
  if (messageId) return messageId.toLowerCase().replace(/_/g, ' ');
  const rule = ruleId.startsWith(RULE_PREFIX) ? ruleId.slice(RULE_PREFIX.length) : ruleId;
  return `${rule} credential`;
}

/**
 * Create the scanner. All texts of one call are linted as one source (joined by a separator no rule crosses), so a
 * write with many fields costs one secretlint run.
 */
export function createSecretlintScanner(options: SecretlintScannerOptions = {}): SecretScanner {
  const disabled = new Set([...DISABLED_RULES, ...(options.disabledRules ?? [])]);
  // The preset's rules one by one (a rule switched off inside a preset descriptor is still run by @secretlint/core).
  const config = {
    rules: presetRules.filter((rule) => !disabled.has(rule.meta.id)).map((rule) => ({ id: rule.meta.id, rule })),
  };
  return {
    id: 'secretlint',
    async scan(texts: readonly SecretScanText[]): Promise<SecretScanFinding[]> {
      const starts: number[] = [];
      let content = '';
      for (const [i, t] of texts.entries()) {
        if (i > 0) content += SEPARATOR;
        starts.push(content.length);
        content += t.text;
      }
      if (content.trim().length === 0) return [];
      const result = await lintSource({
        source: { filePath: 'memory.txt', content, contentType: 'text' },
        options: { config, maskSecrets: true, locale: 'en' },
      });
      const out: SecretScanFinding[] = [];
      for (const m of result.messages) {
        if (m.severity === 'info') continue;
        const [from, to] = m.range;
        // The text the finding starts in: the last one starting at or before it.
        let text = 0;
        while (text + 1 < starts.length && starts[text + 1]! <= from) text++;
        const index = from - starts[text]!;
        const length = Math.min(to, starts[text]! + texts[text]!.text.length) - from;
        if (index < 0 || length <= 0) continue;
        out.push({ text, kind: kindOf(m.ruleId, m.messageId), label: labelOf(m.ruleId, m.messageId), index, length });
      }
      return out;
    },
  };
}
