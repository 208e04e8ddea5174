import { expect } from 'vitest';

/** The three texts every keyword-arm check stores: a search may find each only by its own words. */
export const PLAIN_TERM_TEXTS = {
  deploy: 'The deploy script restarts the api service.',
  lunch: 'Lunch is served at noon on Fridays.',
  ops: 'Operators AND OR NOT are words here too.',
} as const;

/**
 * Keyword terms are plain words, whatever the engine: query syntax of FTS5, tsquery, tantivy and SQL never throws,
 * never widens a search past the rows holding one of its words (an engine may drop operator words as stop words
 * and find fewer), and never changes what is stored. `search` runs the keyword arm with the terms and returns the
 * ids found; `ids` are those of the rows holding `PLAIN_TERM_TEXTS`.
 */
export async function expectPlainTerms(
  search: (terms: string[]) => Promise<string[]>,
  ids: { deploy: string; lunch: string; ops: string },
): Promise<void> {
  const { deploy, lunch, ops } = ids;
  const hostile: [string[], string[]][] = [
    [['"deploy" OR "lunch"'], [deploy, lunch, ops]],
    [['deploy*'], [deploy]],
    [['NEAR(deploy lunch)'], [deploy, lunch]],
    [['content:lunch', 'fts_text:lunch', 'search_text:lunch'], [lunch]],
    [["' OR '1'='1", "'; DROP TABLE chunks; --"], [ops]],
    [
      ['+deploy', '-lunch', 'deploy~2', '^deploy'],
      [deploy, lunch],
    ],
    [['deploy <-> script', '<2>', 'foo:*', 'a & b', '(x | y)', '!!!'], [deploy]],
    [['NOT'], [ops]],
    [['\\', '\\\\', '"', "'", '""', "''", '*', ':', '&', '|', '!', '-', '(', ')', '{a b}', '[', ']'], []],
    [['%', '_', '%_%', '\u0000', '\u001f', ' '], []],
  ];
  for (const [terms, allowed] of hostile) {
    for (const id of await search(terms)) expect(allowed, `${JSON.stringify(terms)} found ${id}`).toContain(id);
  }
  // A real word among the syntax still finds its row; syntax does not pull in a row without the word.
  expect(await search(['deploy', '*', ':', '^x', '""', 'NEAR', '(', 'OR'])).toContain(deploy);
  expect(await search(['lunch', "' OR 1=1 --"])).not.toContain(deploy);
}
