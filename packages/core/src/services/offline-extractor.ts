/**
 * The offline statement extractor: the embedded default of memory that forms itself, no model. It reads what the
 * user says about themselves (`firstPersonStatements`), each message against its own time; assistant and system
 * messages are not read (an assistant's "I" is the assistant), tool results and untrusted messages never unless the
 * caller allows them. Proposals keep the order of the messages.
 */

import { sameValue } from '../domain/formation.js';
import { firstPersonStatements } from '../domain/statements/index.js';
import type { ProposedMemory, StatementExtractor } from '../ports/statement-extractor.js';

/** Bumped whenever the reader's rules change, so the decision log says which rules made a memory. */
export const OFFLINE_EXTRACTOR_VERSION = 'offline-2';

export function createOfflineStatementExtractor(): StatementExtractor {
  return {
    id: 'offline',
    model: null,
    promptVersion: OFFLINE_EXTRACTOR_VERSION,
    async extract({ messages, allowUntrusted = false }) {
      const proposals: ProposedMemory[] = [];
      for (const m of messages) {
        const readable = m.role === 'user' || (allowUntrusted && m.role === 'tool');
        if (!readable || (m.untrusted === true && !allowUntrusted)) continue;
        for (const s of firstPersonStatements(m.content, m.at)) {
          const proposal: ProposedMemory = {
            kind: s.kind,
            subject: s.subject,
            attribute: s.attribute,
            single: s.single,
            polarity: s.polarity,
            stance: s.stance,
            value: s.value,
            statement: s.statement,
            validFrom: s.validFrom,
            validTo: s.validTo,
            evidence: [m.id],
          };
          // The same thing said again in the batch (and nothing else said of it since): one proposal, more evidence.
          const last = proposals.findLast((p) => p.subject === proposal.subject && p.attribute === proposal.attribute);
          const again =
            last !== undefined &&
            last.polarity === proposal.polarity &&
            last.stance === proposal.stance &&
            sameValue(last.value, proposal.value);
          if (!again) proposals.push(proposal);
          else if (!last.evidence.includes(m.id)) last.evidence.push(m.id);
        }
      }
      return { proposals, failures: [] };
    },
  };
}
