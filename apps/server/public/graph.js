// The memory graph in the inspector: find entities (search_nodes, read_graph), draw one entity's neighbourhood
// (graph-neighbours, 1 or 2 hops) as SVG — the centre in the middle, a ring per hop, relations as labelled arrows —
// and show its observations, aliases and history (graph-history). Loaded only when the server lists the graph's
// routes. Stored text goes into the page with textContent only; the drawing is SVG elements made here (no library).

const SVG = 'http://www.w3.org/2000/svg';
const NODE_R = 20;
const CENTRE_R = 27;
const SLOT = 120; // arc length kept per node on a ring, so that labels do not run into each other
const MAX_LISTED = 100;

/** An SVG element with attributes (set as attributes: presentation, not inline style, which the CSP forbids). */
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const short = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const typeOf = (e) => e.entityType ?? 'name only';
const round = (n) => Math.round(n * 10) / 10;

/**
 * Where each entity goes, deterministically: the centre at (0, 0); hop 1 evenly on a ring in name order, starting on
 * the right; hop 2 on a wider ring, each next to the hop-1 entity that reaches it (pushed apart where they crowd).
 */
export function layout(entities, relations) {
  const centre = entities.find((e) => e.hops === 0);
  const ring1 = entities.filter((e) => e.hops === 1);
  const ring2 = entities.filter((e) => e.hops === 2);
  const at = new Map([[centre.name, { x: 0, y: 0, angle: 0 }]]);
  const r1 = Math.max(160, (ring1.length * SLOT) / (2 * Math.PI));
  const angle1 = new Map();
  ring1.forEach((e, i) => {
    const angle = (2 * Math.PI * i) / ring1.length; // from the right, clockwise: one or two neighbours sit level
    angle1.set(e.name, { angle, index: i });
    at.set(e.name, { x: r1 * Math.cos(angle), y: r1 * Math.sin(angle), angle });
  });
  if (ring2.length > 0) {
    const r2 = Math.max(r1 + 150, (ring2.length * SLOT) / (2 * Math.PI));
    const parent = (name) => {
      let best = null;
      for (const r of relations) {
        const other = r.from === name ? r.to : r.to === name ? r.from : null;
        const p = other === null ? undefined : angle1.get(other);
        if (p && (best === null || p.index < best.index)) best = p;
      }
      return best ?? { angle: 0, index: ring1.length };
    };
    const placed = ring2
      .map((e) => ({ e, p: parent(e.name) }))
      .sort((a, b) => a.p.index - b.p.index || a.e.name.localeCompare(b.e.name));
    // Each group spread around its parent's angle, then pushed apart (in order) so that no two come closer than a slot.
    const sep = SLOT / r2;
    const size = new Map();
    for (const { p } of placed) size.set(p.index, (size.get(p.index) ?? 0) + 1);
    let angles = [];
    placed.forEach(({ p }, i) => {
      const first = placed.findIndex((x) => x.p.index === p.index);
      const want = p.angle + (i - first - (size.get(p.index) - 1) / 2) * sep;
      angles.push(i === 0 ? want : Math.max(want, angles[i - 1] + sep));
    });
    if (angles.at(-1) > angles[0] + 2 * Math.PI - sep + 1e-9) {
      // Too many to keep by their parents: evenly round the ring, turned to be closest to them (circular mean).
      const slot = (i) => (2 * Math.PI * i) / placed.length;
      let sin = 0;
      let cos = 0;
      placed.forEach(({ p }, i) => {
        sin += Math.sin(p.angle - slot(i));
        cos += Math.cos(p.angle - slot(i));
      });
      const turn = Math.atan2(sin, cos);
      angles = placed.map((_, i) => turn + slot(i));
    }
    placed.forEach(({ e }, i) => {
      const angle = angles[i];
      at.set(e.name, { x: r2 * Math.cos(angle), y: r2 * Math.sin(angle), angle });
    });
  }
  return at;
}

/** A relation's line (a curve when several relations join the same pair, a loop for itself) and its label's place. */
function edgeShape(a, b, bend, rFrom, rTo) {
  if (a === b) {
    const top = a.y - rFrom;
    return {
      d: `M ${round(a.x - 8)} ${round(top)} C ${round(a.x - 45)} ${round(top - 70)} ${round(a.x + 45)} ${round(top - 70)} ${round(a.x + 8)} ${round(top)}`,
      label: { x: a.x, y: top - 58 },
    };
  }
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy) || 1;
  const nx = -dy / len;
  const ny = dx / len;
  const mid = { x: (a.x + b.x) / 2 + nx * bend, y: (a.y + b.y) / 2 + ny * bend };
  const control = { x: (a.x + b.x) / 2 + nx * bend * 2, y: (a.y + b.y) / 2 + ny * bend * 2 };
  // Both ends stop at the nodes' rims, so that the arrow head shows.
  const toward = (p, q, r) => {
    const l = Math.hypot(q.x - p.x, q.y - p.y) || 1;
    return { x: p.x + ((q.x - p.x) * r) / l, y: p.y + ((q.y - p.y) * r) / l };
  };
  const start = toward(a, bend === 0 ? b : control, rFrom);
  const end = toward(b, bend === 0 ? a : control, rTo + 3);
  if (bend === 0) return { line: { x1: start.x, y1: start.y, x2: end.x, y2: end.y }, label: mid };
  return {
    d: `M ${round(start.x)} ${round(start.y)} Q ${round(control.x)} ${round(control.y)} ${round(end.x)} ${round(end.y)}`,
    label: mid,
  };
}

/** The drawing of a neighbourhood: edges first, nodes over them; `open(name)` re-centres. */
function drawGraph(root, hood, open) {
  const at = layout(hood.entities, hood.relations);
  const centre = hood.entities.find((e) => e.hops === 0);
  // The view fits what is drawn (labels below the nodes, loops above), but never smaller than a few nodes' room.
  const xs = [...at.values()].map((p) => p.x);
  const ys = [...at.values()].map((p) => p.y);
  const box = {
    x0: Math.min(...xs) - 110,
    x1: Math.max(...xs) + 110,
    y0: Math.min(...ys) - 90,
    y1: Math.max(...ys) + 70,
  };
  const grow = (lo, hi, min) => (hi - lo >= min ? [lo, hi] : [(lo + hi - min) / 2, (lo + hi + min) / 2]);
  const [x0, x1] = grow(box.x0, box.x1, 480);
  const [y0, y1] = grow(box.y0, box.y1, 320);
  root.replaceChildren();
  root.setAttribute('viewBox', `${round(x0)} ${round(y0)} ${round(x1 - x0)} ${round(y1 - y0)}`);
  root.setAttribute('data-centre', centre.name);
  root.append(
    svg(
      'defs',
      {},
      svg(
        'marker',
        {
          id: 'graph-arrow',
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'graph-arrow' }),
      ),
    ),
  );
  // Relations that join the same two entities (either way) bend apart so that each label stays readable.
  const pairs = new Map();
  for (const r of hood.relations) {
    const key = [r.from, r.to].sort().join('\u0000');
    pairs.set(key, [...(pairs.get(key) ?? []), r]);
  }
  const edges = svg('g', { class: 'graph-edges' });
  for (const group of pairs.values()) {
    group.forEach((r, i) => {
      const a = at.get(r.from);
      const b = at.get(r.to);
      if (!a || !b) return;
      const [first] = [r.from, r.to].sort();
      const sign = r.from === first ? 1 : -1;
      const bend = group.length === 1 ? 0 : (i - (group.length - 1) / 2) * 36 * sign;
      const rim = (n) => (n === centre.name ? CENTRE_R : NODE_R);
      const s = edgeShape(a, b, bend, rim(r.from), rim(r.to));
      const stroke = s.line
        ? svg('line', {
            x1: round(s.line.x1),
            y1: round(s.line.y1),
            x2: round(s.line.x2),
            y2: round(s.line.y2),
            class: 'graph-line',
            'marker-end': 'url(#graph-arrow)',
          })
        : svg('path', { d: s.d, class: 'graph-line', fill: 'none', 'marker-end': 'url(#graph-arrow)' });
      const label = svg('text', {
        x: round(s.label.x),
        y: round(s.label.y),
        class: 'graph-edge-label',
        'text-anchor': 'middle',
        'dominant-baseline': 'middle',
        'data-testid': 'graph-edge-label',
      });
      label.textContent = short(r.relationType, 28);
      const title = svg('title');
      title.textContent = `${r.from} —${r.relationType}→ ${r.to}`;
      edges.append(
        svg(
          'g',
          { class: 'graph-edge', 'data-testid': 'graph-edge', 'data-from': r.from, 'data-to': r.to },
          title,
          stroke,
          label,
        ),
      );
    });
  }
  const nodes = svg('g', { class: 'graph-nodes' });
  for (const e of hood.entities) {
    const p = at.get(e.name);
    const isCentre = e.hops === 0;
    // A name only relations gave is no entity: graph-neighbours cannot centre on it.
    const canOpen = !isCentre && e.entityType !== null;
    const r = isCentre ? CENTRE_R : NODE_R;
    const name = svg('text', { x: round(p.x), y: round(p.y + r + 15), 'text-anchor': 'middle', class: 'graph-name' });
    name.textContent = short(e.name, 26);
    const type = svg('text', { x: round(p.x), y: round(p.y + r + 29), 'text-anchor': 'middle', class: 'graph-type' });
    type.textContent = short(typeOf(e), 26);
    const title = svg('title');
    const away = `${e.hops} hop${e.hops === 1 ? '' : 's'} away`;
    const hint = canOpen ? `${away}: click to centre` : `${away}, a name only relations gave (no entity to centre on)`;
    title.textContent = `${e.name} (${typeOf(e)})${isCentre ? '' : ` · ${hint}`}`;
    const node = svg(
      'g',
      {
        class: `graph-node hop-${e.hops}${e.entityType === null ? ' implicit' : ''}`,
        'data-testid': 'graph-node',
        'data-name': e.name,
        'data-hops': e.hops,
        ...(canOpen ? { tabindex: 0, role: 'button', 'aria-label': `Centre on ${e.name} (${typeOf(e)})` } : {}),
      },
      title,
      svg('circle', { cx: round(p.x), cy: round(p.y), r }),
      name,
      type,
    );
    if (canOpen) {
      node.addEventListener('click', () => open(e.name));
      node.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          open(e.name);
        }
      });
    }
    nodes.append(node);
  }
  root.append(edges, nodes);
}

/** The Graph tab. Returns nothing; it lists the entities when its tab is shown. */
export function mountGraph({ api, el, $, say, fail }) {
  const root = $('tab-graph');
  const query = el('input', {
    type: 'search',
    placeholder: 'Search entities, or type a name',
    'data-testid': 'graph-query',
  });
  const hops = el(
    'select',
    { 'data-testid': 'graph-hops', title: 'How far to follow relations' },
    el('option', { value: '1', text: '1 hop' }),
    el('option', { value: '2', text: '2 hops' }),
  );
  const results = el('ol', { class: 'graph-results', 'data-testid': 'graph-results' });
  const status = el('div', { class: 'r-meta', 'data-testid': 'graph-status' });
  const empty = el('p', {
    class: 'graph-empty',
    'data-testid': 'graph-empty',
    text: 'Search the graph and choose an entity, or type its name and press Open: its neighbourhood is drawn here.',
  });
  const canvas = svg('svg', {
    class: 'graph-svg',
    'data-testid': 'graph-svg',
    role: 'img',
    'aria-label': 'The neighbourhood of the chosen entity',
  });
  const stage = el('div', { class: 'graph-stage' }, canvas);
  stage.hidden = true;
  const back = el('button', { type: 'button', class: 'secondary', text: 'Back', 'data-testid': 'graph-back' });
  back.disabled = true;
  const detail = el('div', { class: 'graph-detail', 'data-testid': 'graph-detail' });
  const trail = [];
  let current = null;
  let asked = 0;

  const showList = (entities, note) => {
    results.replaceChildren(
      ...(entities.length
        ? entities.slice(0, MAX_LISTED).map((e) => {
            const item = el(
              'li',
              { tabIndex: 0, class: 'link', 'data-testid': 'graph-result', 'data-name': e.name },
              el('div', { class: 'r-name', text: e.name }),
              el('div', {
                class: 'r-meta',
                text: `${typeOf(e)}${e.observations?.length ? ` · ${short(e.observations[0], 80)}` : ''}`,
              }),
            );
            item.addEventListener('click', () => open(e.name));
            item.addEventListener('keydown', (ev) => {
              if (ev.key === 'Enter') open(e.name);
            });
            return item;
          })
        : [el('li', { class: 'r-meta', text: note, 'data-testid': 'graph-no-results' })]),
      ...(entities.length > MAX_LISTED
        ? [el('li', { class: 'r-meta', text: `Showing ${MAX_LISTED} of ${entities.length}: search to narrow.` })]
        : []),
    );
  };

  async function find(event) {
    event?.preventDefault();
    const q = query.value.trim();
    try {
      say('');
      if (q) {
        const found = await api('GET', `/v1/graph/search?query=${encodeURIComponent(q)}`);
        showList(found.entities, `No entities match “${q}”. Open tries it as a name.`);
      } else {
        const all = await api('GET', '/v1/graph');
        showList(all.entities, 'The graph you may see has no entities yet.');
      }
    } catch (error) {
      fail(error);
    }
  }

  function showDetail(hood, history, historyError) {
    const centre = hood.entities.find((e) => e.hops === 0);
    const record = history?.entities.find((x) => x.name === centre.name && x.invalidatedAt === null) ??
      history?.entities.find((x) => x.name === centre.name) ?? { aliases: [] };
    const list = (items, none, testid) =>
      el(
        'ul',
        { 'data-testid': testid },
        ...(items.length ? items.map((t) => el('li', { text: t })) : [el('li', { class: 'r-meta', text: none })]),
      );
    const touching = hood.relations.filter((r) => r.from === centre.name || r.to === centre.name);
    const parts = [
      el('h2', { text: centre.name, 'data-testid': 'graph-detail-name' }),
      el('div', { class: 'r-meta', text: typeOf(centre) }),
      el('h3', { text: 'Observations' }),
      list(centre.observations, 'No observations.', 'graph-observations'),
      el('h3', { text: 'Aliases' }),
      history
        ? list(record.aliases ?? [], 'No aliases.', 'graph-aliases')
        : el('p', { class: 'r-meta', text: 'Not available.' }),
      el('h3', { text: 'Relations' }),
      list(
        touching.map((r) => `${r.from} —${r.relationType}→ ${r.to}`),
        'No current relations.',
        'graph-relations',
      ),
      el('h3', { text: 'History' }),
    ];
    if (!history) {
      parts.push(el('p', { class: 'r-meta', text: `The history is not available: ${historyError}` }));
    } else {
      const closed = [
        ...history.observations.filter((o) => o.invalidatedAt).map((o) => `observation “${o.text}”`),
        ...history.relations
          .filter((r) => r.invalidatedAt)
          .map((r) => `relation ${r.from} —${r.relationType}→ ${r.to}`),
      ];
      if (closed.length) {
        parts.push(el('div', { class: 'r-meta', text: 'Closed (kept in the history):' }));
        parts.push(list(closed, '', 'graph-closed'));
      }
      const log = [...history.log].reverse();
      parts.push(
        el(
          'ol',
          { class: 'graph-log', 'data-testid': 'graph-history' },
          ...(log.length
            ? log.map((l) =>
                el('li', {
                  'data-testid': 'graph-log',
                  text: `${l.at} · ${l.kind} ${l.decision} · by ${l.by}${l.agentId ? ` (agent ${l.agentId})` : ''}`,
                }),
              )
            : [el('li', { class: 'r-meta', text: 'No decisions logged.' })]),
        ),
      );
    }
    detail.replaceChildren(...parts);
  }

  /** Draw `name`'s neighbourhood; `remember` keeps the entity left behind for Back. */
  async function open(name, remember = true) {
    if (!name) return;
    const mine = ++asked;
    const h = hops.value;
    try {
      say('');
      const hood = await api('GET', `/v1/graph/neighbours?name=${encodeURIComponent(name)}&hops=${h}`);
      const centre = hood.entities.find((e) => e.hops === 0);
      let history = null;
      let historyError = '';
      try {
        history = await api('GET', `/v1/graph/history?name=${encodeURIComponent(centre.name)}`);
      } catch (error) {
        historyError = error.code ? `${error.code}: ${error.message}` : String(error);
      }
      if (mine !== asked) return; // a later choice won
      if (remember && current && current !== centre.name) trail.push(current);
      current = centre.name;
      back.disabled = trail.length === 0;
      drawGraph(canvas, hood, (n) => open(n));
      canvas.setAttribute('data-hops', h);
      stage.hidden = false;
      empty.hidden = hood.relations.length > 0;
      empty.textContent = `${centre.name} has no current relations: nothing to draw around it.`;
      const n = hood.entities.length - 1;
      status.textContent = `${centre.name} (${typeOf(centre)}) · ${n} ${n === 1 ? 'entity' : 'entities'} within ${h} hop${h === '1' ? '' : 's'} · ${hood.relations.length} relation${hood.relations.length === 1 ? '' : 's'}`;
      for (const li of results.children) li.classList.toggle('current', li.dataset.name === centre.name);
      showDetail(hood, history, historyError);
    } catch (error) {
      if (mine === asked) fail(error);
    }
  }

  const search = el('button', { type: 'submit', text: 'Search', 'data-testid': 'graph-search' });
  const openButton = el('button', {
    type: 'button',
    class: 'secondary',
    text: 'Open',
    'data-testid': 'graph-open',
    title: 'Open the entity with this name (or alias)',
  });
  const form = el('form', { class: 'graph-form' }, query, el('div', { class: 'buttons' }, search, openButton));
  form.addEventListener('submit', find);
  openButton.addEventListener('click', () => open(query.value.trim()));
  hops.addEventListener('change', () => open(current, false));
  back.addEventListener('click', () => {
    const previous = trail.pop();
    if (previous) open(previous, false);
  });

  root.replaceChildren(
    el('section', { class: 'graph-find' }, el('h3', { text: 'Entities' }), form, results),
    el(
      'section',
      { class: 'graph-canvas' },
      el('div', { class: 'graph-bar' }, el('label', {}, 'Neighbours within ', hops), back, status),
      empty,
      stage,
    ),
    el('section', { class: 'graph-side' }, detail),
  );
  detail.append(el('p', { class: 'r-meta', text: 'The chosen entity’s observations, aliases and history show here.' }));
  document.querySelector('[data-tab="graph"]')?.addEventListener('click', () => {
    if (!query.value.trim()) find();
  });
}
