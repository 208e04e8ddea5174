/**
 * The repository documents itself: every relative link in a Markdown file resolves, nothing points at a
 * specification outside the repository, and the reference pages name every CLI command, HTTP route and MCP tool.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
} from '@mem/core';
import { buildOpenApi, defaultOperations, toolDefinitions } from '@mem/server';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/pack.js';

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(join(ROOT, f)));
const markdown = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('.changeset/'));
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('the documentation', () => {
  it('has every page of docs/', () => {
    for (const page of [
      'README',
      'keys-and-roots',
      'lifecycles',
      'writing',
      'ranking',
      'conversations',
      'notebooks',
      'structured',
      'formation',
      'graph',
      'safety',
      'cli',
      'http-api',
      'mcp',
      'configuration',
      'compose-your-own-stack',
      'writing-an-adapter',
    ])
      expect(existsSync(join(ROOT, 'docs', `${page}.md`)), `docs/${page}.md`).toBe(true);
  });

  it('links only to files that exist in the repository', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = read(file).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = decodeURIComponent(target.split('#')[0]!);
        if (!existsSync(join(ROOT, dirname(file), path))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never points at a specification that is not in the repository', () => {
    const offenders = tracked.filter(
      (f) =>
        !f.startsWith('tooling/release-check/test/') &&
        /(SPEC\.md|SPEC §|ARCHITECTURE\.md|BENCH\.md|DEVELOPERS\.md|shared\/SPEC)/.test(read(f)),
    );
    expect(offenders).toEqual([]);
  });

  it('names every mem command in docs/cli.md', () => {
    const help = execFileSync(process.execPath, [join(ROOT, 'apps', 'cli', 'bin', 'mem-dev.js'), '--help'], {
      encoding: 'utf8',
    });
    const commands = help
      .split('Commands:')[1]!
      .split('\n')
      .map((l) => /^ {2}(\S+(?: \S+)?)\s{2,}/.exec(l)?.[1])
      .filter((c): c is string => !!c);
    expect(commands.length).toBeGreaterThan(30);
    const cli = read('docs/cli.md');
    expect(commands.filter((c) => !cli.includes(`mem ${c}`))).toEqual([]);
  });

  it('names every HTTP route in docs/http-api.md and every MCP tool in docs/mcp.md', () => {
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      structured: createInMemoryStructuredStores(),
      transcripts: createInMemoryTranscriptStore(),
      notebooks: createInMemoryNotebookStore(),
    });
    const operations = defaultOperations(stack);
    const doc = buildOpenApi(operations, { version: '0' }) as { paths: Record<string, unknown> };
    const http = read('docs/http-api.md');
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((p) => !http.includes(p))).toEqual([]);
    const mcp = read('docs/mcp.md');
    const tools = toolDefinitions(operations).map((t) => t.name);
    expect(tools.length).toBeGreaterThan(20);
    expect(tools.filter((t) => !mcp.includes(`\`${t}\``))).toEqual([]);
  });
});
