/** Memory that forms itself (docs/formation.md): distil a conversation into memories, and why a memory is believed. */
import { distillInput, memoryRefInput } from '@mem/core';
import { z } from 'zod';
import { refFrom, str, UsageError } from './cli-binding.js';
import { linesOr } from './cli-print.js';
import { flattenUnionSchema } from './json-schema.js';
import { defineOperation, type Operation } from './operation.js';
import { defined } from './operation-helpers.js';
import { memoryClaimResult, memoryValidityResult, tokenUsage } from './schemas.js';

const isoOrNull = (what: string) => z.string().nullable().describe(what);
const decisionName = z.enum(['add', 'update', 'invalidate', 'noop']);

const distillDecision = z.object({
  decision: decisionName.describe(
    'add: a new memory; update: it supersedes previousId (kept, closed); invalidate: memoryId was closed; noop: already known (evidence added).',
  ),
  memoryId: z.string().describe('The memory made (add, update), closed (invalidate) or found known (noop).'),
  previousId: z.string().nullable().describe('The memory an update superseded, or null.'),
  text: z.string().describe('The fact as kept.'),
  subject: z.string(),
  attribute: z.string().describe('What about the subject, e.g. "residence", "preference.flight".'),
  value: z.string(),
  evidence: z.array(z.string()).describe('Ids of the messages it rests on.'),
  validFrom: isoOrNull('World time it starts to hold, when the conversation says.'),
  validTo: isoOrNull('World time it stops holding, when the conversation says.'),
});

const failure = z.object({ code: z.string(), message: z.string() });

export const distillResult = z.object({
  messages: z.number().int().describe('Messages read.'),
  skipped: z.number().int().describe('Messages not read: tool results and untrusted content, unless allowed.'),
  dryRun: z.boolean(),
  decisions: z.array(distillDecision),
  failures: z.array(failure).describe('What could not become a memory and why (a secret, a refused proposal…).'),
  extractor: z.string(),
  model: z.string().nullable(),
  promptVersion: z.string(),
  usage: tokenUsage.describe('Tokens the extractor spent (zero offline).'),
  cursor: z
    .object({ at: z.string(), ids: z.array(z.string()) })
    .nullable()
    .describe('Where the next distillation of the transcript starts (null for given messages).'),
  queued: z
    .array(z.string())
    .optional()
    .describe('Review mode: the proposals put in the review queue (distill-review), applied only when approved.'),
});

const logLine = z.object({
  id: z.string(),
  space: z.string(),
  memoryId: z.string(),
  decision: decisionName,
  previousId: z.string().nullable(),
  text: z.string(),
  evidence: z.array(z.string()),
  extractor: z.string(),
  model: z.string().nullable(),
  promptVersion: z.string(),
  related: z.array(z.string()).describe('The current memories it was compared with.'),
  agentId: z.string(),
  userId: z.string().nullable(),
  at: z.string(),
});

const chainLink = memoryValidityResult.extend({
  id: z.string(),
  content: z.string(),
  recordedAt: z.string().describe('System time it was recorded.'),
  claim: memoryClaimResult,
  current: z.boolean().describe('True when it holds now.'),
});

const whyResult = z.object({
  memory: chainLink,
  decisions: z.array(logLine).describe('The decisions that led to it, oldest first.'),
  evidence: z.array(z.string()).describe('Every message id the decisions cite.'),
  chain: z.array(chainLink).describe('The supersede chain it belongs to, oldest first.'),
});

interface DecisionLine {
  decision: string;
  memoryId: string;
  previousId: string | null;
  text: string;
  evidence: string[];
}

/** One message per JSON Lines line: `{"role": "user", "content": "…", "at": "…", "id": "…"}`. */
function messagesOf(text: string, file: string): unknown[] {
  const out: unknown[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new UsageError(
        `${file} line ${i + 1} is not JSON (${(e as Error).message}): give one message per line, e.g. {"role":"user","content":"I moved to Lisbon","at":"2026-05-01T09:00:00Z"}.`,
      );
    }
  }
  return out;
}

const arrow: Record<string, string> = { add: '+', update: '~', invalidate: '×', noop: '=' };

export const distill = defineOperation({
  name: 'distill',
  summary: 'Form memories from a conversation',
  description:
    "Read a conversation and keep what the user says about themselves as memories that stay current: a new fact is added; a changed one supersedes the old (kept, closed with validTo and supersededBy); a retracted one is closed; one already known gains evidence. Nothing is deleted. Without messages, the agent's transcript since its last distillation is read. Tool results and untrusted content are never read unless allowUntrusted is set; secrets are never kept. Every decision is logged (memory-why).",
  group: 'knowledge',
  input: distillInput,
  output: distillResult,
  write: true,
  http: { method: 'POST', path: '/v1/distill' },
  tool: true,
  cli: {
    command: 'distill',
    usage: 'mem distill [--file messages.jsonl|-] [--since TIME] [--allow-untrusted] [--dry-run] [--review]',
    input: async (cli) => {
      const file = str(cli.flags, 'file');
      const text =
        file === undefined
          ? undefined
          : file === '-'
            ? await cli.readStdin()
            : cli.readTextFile(file, 'the messages file');
      return defined({
        messages: text === undefined ? undefined : messagesOf(text, file ?? 'stdin'),
        since: str(cli.flags, 'since'),
        allowUntrusted: cli.flags['allow-untrusted'] === true ? true : undefined,
        dryRun: cli.flags['dry-run'] === true ? true : undefined,
        review: cli.flags.review === true ? true : undefined,
      });
    },
    print: (r: {
      messages: number;
      skipped: number;
      dryRun: boolean;
      decisions: DecisionLine[];
      failures: { code: string; message: string }[];
      queued?: string[];
    }) =>
      [
        `${r.queued ? 'Kept for review' : r.dryRun ? 'Would decide' : 'Distilled'} ${r.messages} message${r.messages === 1 ? '' : 's'}${r.skipped > 0 ? ` (${r.skipped} not read: tool results or untrusted)` : ''}:`,
        linesOr(
          r.decisions,
          'nothing to remember.',
          (d) =>
            `${arrow[d.decision] ?? '?'} ${d.decision} ${d.memoryId}${d.previousId ? ` (supersedes ${d.previousId})` : ''}: ${d.text} [${d.evidence.join(', ')}]`,
        ),
        ...r.failures.map((f) => `! ${f.code}: ${f.message}`),
        ...(r.queued ? [`${r.queued.length} proposal(s) wait for approval: mem distill review`] : []),
      ].join('\n'),
  },
  run: ({ principal, stack }, input) => stack.distill(principal, input),
});

export const memoryWhy = defineOperation({
  name: 'memory-why',
  summary: 'Why a memory is believed',
  description:
    'The decisions behind a memory formed from a conversation: each decision (add, update, invalidate, noop) with the messages it rests on, the extractor, model and prompt version, the memories compared, and the supersede chain the memory belongs to.',
  group: 'knowledge',
  input: memoryRefInput,
  output: whyResult,
  write: false,
  http: { method: 'GET', path: '/v1/memories/{id}/why', input: ({ params }) => ({ id: params.id }) },
  tool: { inputSchema: flattenUnionSchema(memoryRefInput) },
  cli: {
    command: 'why',
    usage: 'mem why <id> | mem why --key K [--scope S]',
    input: refFrom,
    print: (r: {
      memory: { id: string; content: string; current: boolean };
      decisions: (DecisionLine & { at: string; extractor: string; model: string | null })[];
      evidence: string[];
      chain: { id: string; content: string; current: boolean; validFrom: string | null; validTo: string | null }[];
    }) =>
      [
        `${r.memory.id} ${r.memory.current ? '(current)' : '(closed)'}: ${r.memory.content}`,
        'Decisions:',
        linesOr(
          r.decisions,
          'none logged (written on purpose, not formed).',
          (d) =>
            `  ${d.at} ${d.decision} ${d.memoryId} by ${d.extractor}${d.model ? `/${d.model}` : ''} from ${d.evidence.join(', ')}: ${d.text}`,
        ),
        ...(r.chain.length > 1
          ? [
              'Chain (oldest first):',
              ...r.chain.map(
                (c) => `  ${c.current ? '*' : ' '} ${c.id} ${c.validFrom ?? '…'} → ${c.validTo ?? 'now'}: ${c.content}`,
              ),
            ]
          : []),
      ].join('\n'),
  },
  run: ({ principal, stack }, input) => stack.knowledge.why(principal, input),
});

/** The formation operations, after the knowledge ones. */
export const formationOperations: Operation[] = [distill, memoryWhy];
