/** A deterministic synthetic corpus of realistic short agent memories (seeded), and queries over it. */
import type { Scope, Source } from '@mem/core';
import { seededRandom } from '@mem/core/adapter';

export const rng = seededRandom;

const SUBJECTS = [
  'the billing service',
  'the payments API',
  'the deploy pipeline',
  'the staging cluster',
  'the search index',
  'the auth gateway',
  'the mobile app',
  'the data warehouse',
  'the onboarding flow',
  'the invoice generator',
  'the webhook relay',
  'the cache layer',
  'the feature flag service',
  'the support inbox',
  'the nightly backup',
  'the metrics exporter',
];
const VERBS = [
  'retries',
  'times out after',
  'is rebuilt every',
  'pages on-call after',
  'was migrated to',
  'depends on',
  'is owned by',
  'logs to',
  'scales up at',
  'was rolled back because of',
  'needs a restart after',
  'caches results for',
];
const OBJECTS = [
  'three attempts',
  '30 seconds',
  'Sunday night',
  'five failed health checks',
  'PostgreSQL 15',
  'the Redis cluster',
  'the platform team',
  'the central collector',
  '80 percent CPU',
  'a schema mismatch',
  'each config change',
  'ten minutes',
  'the EU region',
  'customer Acme Corp',
  'the Q3 roadmap',
  'a memory leak in the worker',
];
const EXTRAS = [
  'Confirmed by the on-call engineer.',
  'See the runbook for details.',
  'This changed last quarter.',
  'Customers noticed twice.',
  'Keep this in mind for releases.',
  '',
  '',
  '',
];
const TAGS = ['ops', 'billing', 'ci', 'infra', 'product', 'support', 'security', 'data'];
const SOURCES: Source[] = ['manual', 'file_index', 'task_completion', 'session_summary'];

export interface CorpusItem {
  content: string;
  tags: string[];
  scope: Scope;
  source: Source;
  agentId: string;
  /** Age in days at ingest. */
  ageDays: number;
}

export function corpus(n: number, seed = 42): CorpusItem[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const items: CorpusItem[] = [];
  for (let i = 0; i < n; i++) {
    const content = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} (note ${i}). ${pick(EXTRAS)}`.trim();
    items.push({
      content: content[0]!.toUpperCase() + content.slice(1),
      tags: [pick(TAGS), ...(r() < 0.3 ? [pick(TAGS)] : [])].filter((t, j, a) => a.indexOf(t) === j),
      scope: r() < 0.3 ? 'swarm' : 'agent',
      source: r() < 0.7 ? 'manual' : pick(SOURCES),
      agentId: `agent-${Math.floor(r() * 8)}`,
      ageDays: Math.floor(r() * 60),
    });
  }
  return items;
}

export function queries(count: number, seed = 7): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  return Array.from(
    { length: count },
    () => `what do we know about how ${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}`,
  );
}
