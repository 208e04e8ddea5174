// Memory that forms itself, in the inspector: why a formed memory is believed (its decision log and supersede chain),
// and the review queue of distill's review mode (approve or reject each proposal). Text goes in with textContent only.

/** The "Why" part of a memory's detail: the decisions behind it and its chain; empty for memories written on purpose. */
export async function renderWhy({ api, el, $ }, doc) {
  const box = $('d-why');
  box.replaceChildren();
  box.hidden = doc.source !== 'distilled';
  if (box.hidden) return;
  const why = await api('GET', `/v1/memories/${encodeURIComponent(doc.id)}/why`);
  const decisions = why.decisions.map((d) =>
    el(
      'li',
      { 'data-testid': 'why-decision' },
      el('div', {
        class: 'v-head',
        text: `${d.at} · ${d.decision} · by ${d.extractor}${d.model ? `/${d.model}` : ''} (${d.promptVersion}) · agent ${d.agentId}${d.userId ? ` for ${d.userId}` : ''}`,
      }),
      el('div', { text: d.text }),
      el('div', { class: 'r-meta', text: `evidence: ${d.evidence.join(', ')}`, 'data-testid': 'why-evidence' }),
      d.related.length ? el('div', { class: 'r-meta', text: `compared with: ${d.related.join(', ')}` }) : null,
    ),
  );
  const chain = why.chain.map((c) =>
    el('li', {
      'data-testid': 'why-chain',
      class: c.current ? 'current' : '',
      text: `${c.current ? 'current' : 'closed'} · ${c.validFrom ?? '…'} → ${c.validTo ?? 'now'} · ${c.content}`,
    }),
  );
  box.append(
    el('h3', { text: 'Why this is believed' }),
    el('ol', {}, ...decisions),
    ...(chain.length > 1 ? [el('h3', { text: 'Supersede chain (oldest first)' }), el('ol', {}, ...chain)] : []),
  );
}

/** The Review tab: the proposals waiting for approval, each with Approve and Reject. */
export function mountReview({ api, el, $, say, fail }) {
  const root = $('review');
  const load = async () => {
    try {
      const { agentId, items } = await api('GET', '/v1/distill/review');
      const rows = items.map((x) => {
        const decide = (verb) => async () => {
          try {
            const r = await api('POST', `/v1/distill/review/${verb}`, { ids: [x.id] });
            const made = (r.reports ?? []).flatMap((rep) => rep.decisions.map((d) => `${d.decision} ${d.memoryId}`));
            say(`${verb === 'approve' ? 'Approved' : 'Rejected'} ${x.id}${made.length ? `: ${made.join(', ')}` : ''}.`);
            await load();
          } catch (error) {
            fail(error);
          }
        };
        const approve = el('button', { type: 'button', text: 'Approve', 'data-testid': 'review-approve' });
        const reject = el('button', {
          type: 'button',
          class: 'secondary',
          text: 'Reject',
          'data-testid': 'review-reject',
        });
        approve.addEventListener('click', decide('approve'));
        reject.addEventListener('click', decide('reject'));
        return el(
          'li',
          { 'data-testid': 'review-item', 'data-id': x.id },
          el('div', {
            class: 'v-head',
            text: `${x.decision}${x.target ? ` ${x.target}` : ''} · ${x.queuedAt}${x.userId ? ` · user ${x.userId}` : ''} · ${x.extractor.id}`,
          }),
          el('div', { text: x.text, 'data-testid': 'review-text' }),
          el('div', { class: 'r-meta', text: `evidence: ${x.proposal.evidence.join(', ')}` }),
          el('div', { class: 'buttons' }, approve, reject),
        );
      });
      root.replaceChildren(
        el('p', { text: `Proposals waiting for approval for agent ${agentId} (distill review mode).` }),
        rows.length
          ? el('ol', {}, ...rows)
          : el('p', { text: 'Nothing waits for approval.', 'data-testid': 'review-empty' }),
      );
    } catch (error) {
      root.replaceChildren(el('p', { text: `The review queue is not available here: ${error.message}` }));
    }
  };
  return load;
}
