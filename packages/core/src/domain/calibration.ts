/**
 * Calibrating an embedder's cosine (docs/ranking.md): cosines of one model are not comparable with another's (a small
 * model puts unrelated sentences at 0.1–0.3 and paraphrases at 0.5–0.7; a large one at 0.7 and 0.9). A fixed set of
 * sentence pairs, embedded once per stack, gives the model's typical cosine for unrelated pairs and for paraphrases;
 * a similarity is then placed on that scale: 0 = as close as unrelated sentences, 1 = as close as a paraphrase.
 * Pure functions and data; the service embeds the pairs.
 */

/** Pairs that mean the same thing in other words. Written for this project; mixed topics, work and life. */
export const PARAPHRASE_PAIRS: readonly (readonly [string, string])[] = [
  [
    'The nightly backup job failed because the disk was full.',
    'Last night the backup did not run: no space was left on the drive.',
  ],
  ['Our team meets every morning at nine for a short standup.', 'The daily team sync is at 9 am each day.'],
  [
    'Invoices that fail to charge are retried three times, a day apart.',
    'A failed invoice payment gets three more attempts, one every 24 hours.',
  ],
  [
    'She adopted a puppy from the animal shelter last weekend.',
    'Last weekend she took home a young dog from the rescue centre.',
  ],
  ['The API rejects requests larger than ten megabytes.', 'Request bodies over 10 MB are refused by the API.'],
  ['He is training for a marathon in the spring.', 'He is preparing to run a 42 km race this spring.'],
  ['Deploys to production are frozen during the holidays.', 'No releases go out to prod over the holiday period.'],
  ['My sister moved to Lisbon for a new job.', 'My sister relocated to Lisbon because she got a new position there.'],
  ['The customer prefers answers in German.', 'This client wants replies written in German.'],
  [
    'Use the staging database for load tests, never production.',
    'Load testing must run against staging, not the live database.',
  ],
  ['We painted the kitchen a pale green colour.', 'The kitchen walls are now a light shade of green.'],
  ['The search service times out after two seconds.', 'Queries to the search service give up after 2 s.'],
  ['I started learning the piano when I was seven.', 'I have played piano since the age of seven.'],
  ['Passwords must be rotated every ninety days.', 'Every 90 days users have to change their password.'],
  ['They went camping by the lake with their kids.', 'The family spent a few nights in a tent near the lake.'],
  ['The report is due to the board on Friday.', 'We have to hand the board the report by the end of the week.'],
];

/** Pairs about unrelated things. */
export const UNRELATED_PAIRS: readonly (readonly [string, string])[] = [
  [
    'The nightly backup job failed because the disk was full.',
    'She adopted a puppy from the animal shelter last weekend.',
  ],
  ['Our team meets every morning at nine for a short standup.', 'We painted the kitchen a pale green colour.'],
  [
    'Invoices that fail to charge are retried three times, a day apart.',
    'He is training for a marathon in the spring.',
  ],
  ['The API rejects requests larger than ten megabytes.', 'My sister moved to Lisbon for a new job.'],
  ['Deploys to production are frozen during the holidays.', 'I started learning the piano when I was seven.'],
  ['The customer prefers answers in German.', 'They went camping by the lake with their kids.'],
  ['Use the staging database for load tests, never production.', 'The recipe needs two cups of flour and an egg.'],
  ['The search service times out after two seconds.', 'Our cat sleeps on the windowsill all afternoon.'],
  ['Passwords must be rotated every ninety days.', 'The museum is closed on Mondays.'],
  ['The report is due to the board on Friday.', 'A heavy storm knocked down trees along the coast.'],
  ['She adopted a puppy from the animal shelter last weekend.', 'Request bodies over 10 MB are refused by the API.'],
  ['He is preparing to run a 42 km race this spring.', 'No releases go out to prod over the holiday period.'],
  [
    'My sister relocated to Lisbon because she got a new position there.',
    'Queries to the search service give up after 2 s.',
  ],
  ['The kitchen walls are now a light shade of green.', 'Every 90 days users have to change their password.'],
  [
    'I have played piano since the age of seven.',
    'A failed invoice payment gets three more attempts, one every 24 hours.',
  ],
  ['The family spent a few nights in a tent near the lake.', 'This client wants replies written in German.'],
];

/** The texts to embed, in the order `calibrationFrom` expects their vectors. */
export function calibrationTexts(): string[] {
  return [...PARAPHRASE_PAIRS, ...UNRELATED_PAIRS].flat();
}

/** An embedder's typical cosine for unrelated sentences and for paraphrases (medians over the pairs). */
export interface EmbedderCalibration {
  unrelated: number;
  paraphrase: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The calibration from the cosines of the pairs (`pairCosines[i]` for pair i of PARAPHRASE_PAIRS then UNRELATED_PAIRS).
 * An embedder that cannot tell them apart (paraphrases not closer than unrelated pairs) gets null: its similarities
 * carry no evidence and the keyword evidence decides alone.
 */
export function calibrationFrom(pairCosines: readonly number[]): EmbedderCalibration | null {
  const p = PARAPHRASE_PAIRS.length;
  const paraphrase = median(pairCosines.slice(0, p) as number[]);
  const unrelated = median(pairCosines.slice(p) as number[]);
  if (!(paraphrase - unrelated > 0.05)) return null;
  return { unrelated, paraphrase };
}

/** A cosine on the embedder's own scale: 0 = unrelated, 1 = a paraphrase (not clipped). */
export function calibratedSimilarity(similarity: number, calibration: EmbedderCalibration): number {
  return (similarity - calibration.unrelated) / (calibration.paraphrase - calibration.unrelated);
}

/**
 * The recall block keeps memories with a match confidence of at least this. Measured on LoCoMo's questions (the
 * retrieval bench's recall-block figures, apps/bench README): against the old rule (raw cosine ≥ 0.4) more blocks
 * hold evidence and the block recalls more of it; fewer blocks stay empty for a question asked in another
 * conversation, which is the price. Paraphrased tasks (a memory worded differently) pass with the small local model.
 */
export const DEFAULT_RECALL_THRESHOLD = 0.6;

/**
 * dedup-check calls a memory a duplicate at this likeness or when the texts are equal. Likeness = √(term overlap ×
 * calibrated similarity), or the overlap alone without an embedder: a duplicate must share the wording as well as
 * the meaning, so that a different fact about the same thing ("twelve nodes in us-east" beside "three nodes in
 * eu-west") is not called one.
 */
export const DEFAULT_DEDUP_THRESHOLD = 0.8;

/** The likeness dedup-check compares (see DEFAULT_DEDUP_THRESHOLD). */
export function duplicateLikeness(termOverlap: number, calibrated: number | null): number {
  const overlap = Math.min(1, Math.max(0, termOverlap));
  return calibrated === null ? overlap : Math.sqrt(overlap * Math.min(1, Math.max(0, calibrated)));
}

/**
 * How sure the ranking is that a memory answers a query, in [0, 1] (docs/ranking.md): two pieces of evidence combined
 * as independent ones (noisy OR): the share of the query's words the memory holds, and the similarity on the
 * embedder's calibrated scale (clipped to [0, 1]; null without a usable embedder). 1 − (1 − words)(1 − meaning).
 */
export function matchConfidence(wordEvidence: number, calibrated: number | null): number {
  const clip = (x: number) => Math.min(1, Math.max(0, x));
  return 1 - (1 - clip(wordEvidence)) * (1 - (calibrated === null ? 0 : clip(calibrated)));
}
