/**
 * What the keyword (and vector) arms of the episode and procedure stores index. One definition, so that every
 * adapter searches the same text: a SQL adapter puts exactly this string into its full-text column.
 */
import type { Episode, Procedure } from '../types-structured.js';

/** Episodes are found by their summary, key decisions and tags. */
export function episodeSearchText(e: Pick<Episode, 'summary' | 'keyDecisions' | 'tags'>): string {
  return [e.summary, ...e.keyDecisions, ...e.tags].join('\n');
}

/** Procedures are found by their name, description and trigger. */
export function procedureSearchText(p: Pick<Procedure, 'name' | 'description' | 'trigger'>): string {
  return [p.name, p.description, p.trigger].join('\n');
}
