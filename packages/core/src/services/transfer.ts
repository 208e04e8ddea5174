/**
 * `mem export` / `mem import` of a stack (docs/writing.md#import-and-export-json-lines): the memory lines, then —
 * when the stack has a graph — the graph's lines (`{"type":"graph-entity",…}`, `graph-observation`,
 * `graph-relation`, `graph-log`). A file of memory lines only imports as it always did.
 */
import { checkName } from '../domain/names.js';
import { MemError } from '../errors.js';
import type { Stack } from '../stack.js';
import type { Principal } from '../types.js';
import type { GraphImportCounts, GraphImportPlan } from './graph/transfer.js';
import { type GraphLine, isGraphLine } from './graph/transfer-lines.js';
import type { ImportLinesOptions } from './knowledge/transfer.js';
import type { ExportRecord, ImportReport } from './knowledge/types.js';

/** An import's report: the memory lines' (`imported`, `duplicates`, `skipped`, `errors`, `usage`) and the graph's. */
export interface TransferReport extends ImportReport {
  /** Graph records written, and those the space held already (`duplicates`: left as they were). */
  graph: GraphImportCounts;
}

const NO_GRAPH: GraphImportCounts = { entities: 0, observations: 0, relations: 0, log: 0, duplicates: 0 };

/**
 * Every memory the principal may export (as `knowledge.export`), then every graph record it may export (a lead: the
 * whole space; a worker: the records it sees), each as one line object. Without a graph, the memories only.
 */
export async function* exportJsonLines(stack: Stack, p: Principal): AsyncGenerator<ExportRecord | GraphLine> {
  yield* stack.knowledge.export(p);
  if (stack.graph) yield* stack.graph.exportLines(p);
}

/**
 * Import JSON Lines as export writes them. Graph lines are checked first, all of them, and a bad one refuses the
 * whole file with an error naming its line and field (nothing is written); a stack without a graph refuses a file
 * with graph lines (`CAPABILITY_MISSING`). Then the memory lines are imported as `knowledge.importLines` does (a bad
 * one is reported and skipped, its line number that of the file), then the graph records are written.
 */
export async function importJsonLines(
  stack: Stack,
  p: Principal,
  text: string,
  options: ImportLinesOptions = {},
): Promise<TransferReport> {
  checkName(p.space, 'space');
  checkName(p.agentId, 'agent');
  if (p.userId !== undefined) checkName(p.userId, 'user');
  const rows = text.split(/\r?\n/);
  const graphLines: { line: number; value: { type: string } }[] = [];
  for (const [i, row] of rows.entries()) {
    if (!row.includes('"type"')) continue;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch {
      continue;
    }
    if (!isGraphLine(value)) continue;
    graphLines.push({ line: i + 1, value });
    rows[i] = '';
  }
  let plan: GraphImportPlan | null = null;
  if (graphLines.length > 0) {
    if (!stack.graph) {
      throw new MemError(
        'CAPABILITY_MISSING',
        `line ${graphLines[0]!.line}: the file has ${graphLines.length} graph line(s) but this stack has no graph store, so nothing was imported. Import it into a stack whose stores serve the graph (@mem/store-sqlite, @mem/store-postgres, @mem/store-lancedb or createInMemoryStructuredStores()), or leave out the lines whose "type" starts with "graph-".`,
        { details: { port: 'graph', line: graphLines[0]!.line } },
      );
    }
    plan = await stack.graph.checkImport(p, graphLines);
  }
  const memories = await stack.knowledge.importLines(p, plan ? rows.join('\n') : text, options);
  if (!plan || !stack.graph || options.signal?.aborted) return { ...memories, graph: { ...NO_GRAPH } };
  const graph = await stack.graph.writeImport(p, plan, options.batchSize);
  return { ...memories, graph };
}
