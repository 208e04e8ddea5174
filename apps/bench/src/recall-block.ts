/**
 * The recall block on a labelled set built from LoCoMo: each question is a task, its evidence turns the memories that
 * belong in the block. Asked in its own conversation's space, the block should hold evidence (precision = evidence /
 * memories in all blocks, both spaces, recall = evidence in blocks / evidence that fits in a block); asked in another conversation's
 * space (nothing there is evidence), the block should stay empty. Several rules are scored from one recall per question
 * and space (threshold 0): the old rule (raw cosine ≥ 0.4) and match-confidence thresholds.
 */
import type { KnowledgeService, Principal } from '@mem/core';
import type { Conversation } from './locomo.js';

export interface RecallBlockFigures {
  rule: string;
  precision: number;
  recall: number;
  /** Share of own-space questions whose block holds at least one evidence turn. */
  with_evidence: number;
  /** Share of other-space questions that get no block. */
  empty_elsewhere: number;
}

interface Asked {
  own: boolean;
  evidence: number;
  /** Per memory offered (top 5): its confidence, raw similarity and whether it is evidence. */
  offered: { confidence: number; similarity: number | null; evidence: boolean }[];
}

export const RECALL_RULES: { rule: string; keep: (m: Asked['offered'][number]) => boolean }[] = [
  { rule: 'cosine ≥ 0.4 (old)', keep: (m) => (m.similarity ?? 0) >= 0.4 },
  ...[0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8].map((t) => ({
    rule: `confidence ≥ ${t}`,
    keep: (m: Asked['offered'][number]) => m.confidence >= t,
  })),
];

export async function measureRecallBlock(
  knowledge: KnowledgeService,
  conversations: readonly Conversation[],
  idOf: (c: Conversation) => (diaId: string) => string | undefined,
  limit = 5,
): Promise<RecallBlockFigures[]> {
  const asked: Asked[] = [];
  for (const [i, c] of conversations.entries()) {
    const idOfTurn = idOf(c);
    const elsewhere = conversations[(i + 1) % conversations.length]!;
    for (const q of c.questions) {
      const evidence = new Set(q.evidence.map(idOfTurn).filter((x): x is string => x !== undefined));
      if (evidence.size === 0) continue;
      for (const space of elsewhere === c ? [c] : [c, elsewhere]) {
        const p: Principal = { space: space.id, agentId: 'bench', role: 'worker' };
        const { memories } = await knowledge.recall(p, q.question, { limit, threshold: 0 });
        const own = space === c;
        asked.push({
          own,
          evidence: Math.min(limit, evidence.size),
          offered: memories.map((m) => ({
            confidence: m.confidence,
            similarity: m.similarity,
            evidence: own && evidence.has(m.docId),
          })),
        });
      }
    }
  }
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return RECALL_RULES.map(({ rule, keep }) => {
    let kept = 0;
    let hits = 0;
    let wanted = 0;
    let withEvidence = 0;
    let own = 0;
    let empty = 0;
    let other = 0;
    for (const a of asked) {
      const block = a.offered.filter(keep);
      kept += block.length;
      if (a.own) {
        own++;
        const h = block.filter((m) => m.evidence).length;
        hits += h;
        wanted += a.evidence;
        if (h > 0) withEvidence++;
      } else {
        other++;
        if (block.length === 0) empty++;
      }
    }
    return {
      rule,
      precision: r3(kept === 0 ? 0 : hits / kept),
      recall: r3(wanted === 0 ? 0 : hits / wanted),
      with_evidence: r3(own === 0 ? 0 : withEvidence / own),
      empty_elsewhere: r3(other === 0 ? 0 : empty / other),
    };
  });
}
