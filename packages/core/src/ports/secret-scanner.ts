/**
 * An extra, asynchronous secret scan run after mem's own rules (domain/secrets.ts) on every write: a maintained rule
 * set such as secretlint's recommended preset (@mem/secrets-secretlint). One call scans every free-text field of one
 * write, so a scanner with a per-call cost pays it once.
 */
export interface SecretScanText {
  /** The field, as named in messages ("content", "tag", "notebook file MEMORY.md"). */
  what: string;
  /** The text, already normalised by mem (NFKC, no zero-width or bidi characters). */
  text: string;
}

/** One credential a scanner found in one of the texts it was given. */
export interface SecretScanFinding {
  /** Position of the text in the `texts` array of the call. */
  text: number;
  /** A stable kind name, e.g. `notion-token`. */
  kind: string;
  /** A human label, e.g. `Notion integration token`. Must not hold the secret. */
  label: string;
  /** Offset and length of the secret in that text (used to redact transcripts). */
  index: number;
  length: number;
}

export interface SecretScanner {
  /** Names the scanner and its rule set in messages, e.g. `secretlint`. */
  readonly id: string;
  /** Scan several texts at once; resolves to every finding (none: an empty array). No network at scan time. */
  scan(texts: readonly SecretScanText[]): Promise<SecretScanFinding[]>;
}
