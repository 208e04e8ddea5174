/**
 * The stack's optional asynchronous secret scanner (ports/secret-scanner.ts), run after mem's own synchronous rules:
 * one scanner call per write over every free-text field, a refusal shaped exactly like mem's (`SECRET_DETECTED`,
 * naming the kind, the position and the scanner, never the value), or redaction for transcripts.
 */
import { normalizeForScan, redactRanges, secretRefusal, textPositions } from '../domain/secrets.js';
import { MemError } from '../errors.js';
import type { SecretScanFinding, SecretScanner, SecretScanText } from '../ports/secret-scanner.js';

/** The fields of one write, as given to `guardFields` (undefined and null are skipped). */
export type ScanFields = Record<string, string | null | undefined | readonly string[]>;

async function run(scanner: SecretScanner, texts: SecretScanText[]): Promise<SecretScanFinding[]> {
  let found: SecretScanFinding[];
  try {
    found = await scanner.scan(texts);
  } catch (error) {
    if (error instanceof MemError) throw error;
    throw new MemError(
      'INTERNAL',
      `The secret scanner "${scanner.id}" failed, so nothing was written: ${error instanceof Error ? error.message : String(error)}. Check the scanner's installation, or start without it (docs/safety.md).`,
      { cause: error },
    );
  }
  // Keep findings that point inside their text; sort them and drop overlaps (the earliest wins).
  const ok = found
    .filter((f) => {
      const t = texts[f.text];
      return t !== undefined && f.index >= 0 && f.length > 0 && f.index + f.length <= t.text.length;
    })
    .sort((a, b) => a.text - b.text || a.index - b.index);
  return ok.filter((f, i) => {
    const prev = ok[i - 1];
    return !prev || prev.text !== f.text || prev.index + prev.length <= f.index;
  });
}

/** Refuse a write when the scanner finds a secret in any of its fields; does nothing without a scanner. */
export async function scanFields(scanner: SecretScanner | undefined, fields: ScanFields): Promise<void> {
  if (!scanner) return;
  const texts: SecretScanText[] = [];
  for (const [what, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) texts.push({ what, text: normalizeForScan(v) });
  }
  if (texts.length === 0) return;
  const found = await run(scanner, texts);
  if (found.length === 0) return;
  const first = found[0]!.text;
  const text = texts[first]!;
  // The positions of every finding come from one pass over the text (not one pass per finding).
  const mine = found.filter((f) => f.text === first);
  const positions = textPositions(
    text.text,
    mine.map((f) => f.index),
  );
  throw secretRefusal(
    text.what,
    mine.map((f, i) => ({ kind: f.kind, label: f.label, ...positions[i]!, scanner: scanner.id })),
  );
}

/**
 * Transcripts: replace what the scanner finds by `[REDACTED:<kind>]` (a turn is never refused), over several texts in
 * one scanner call. A text with a finding comes back normalised (as mem's own redaction does); a clean text comes
 * back unchanged.
 */
export async function scanAndRedact(
  scanner: SecretScanner | undefined,
  texts: readonly string[],
  what: string,
): Promise<string[]> {
  if (!scanner || texts.every((t) => t.length === 0)) return [...texts];
  const norm = texts.map((t) => normalizeForScan(t));
  const found = await run(
    scanner,
    norm.map((text) => ({ what, text })),
  );
  return texts.map((t, i) => {
    const mine = found.filter((f) => f.text === i);
    return mine.length === 0 ? t : redactRanges(norm[i]!, mine);
  });
}
