// mem inspector: search, read, edit, move, rate and delete memories through the HTTP API.
// Every piece of memory text is put into the page with textContent, never as HTML.
import { ApiError, api, getKey, getUser, setKey, setUser } from './api.js';
import { mountReview, renderWhy } from './formation.js';

const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('data-')) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// Characters that render as nothing (mem drops them on write; text stored before that may hold them): shown as ⟨U+…⟩,
// but for the joiner and the emoji selector that emoji sequences are made of.
const HIDDEN = /[[\p{Default_Ignorable_Code_Point}\p{Cf}]--[\u200d\ufe0f]]/gv;
const reveal = (text) =>
  String(text ?? '').replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);

const fmt = (n, d = 3) => (n === null || n === undefined ? '—' : Number(n).toFixed(d));
const state = { selected: null, scores: null, operations: new Set(), me: null };

function say(text, isError = false) {
  const m = $('message');
  m.textContent = text;
  m.className = isError ? 'error' : '';
  m.hidden = !text;
}

function fail(error) {
  if (error instanceof ApiError) {
    say(`${error.code}: ${error.message}`, true);
    if (error.status === 401) $('api-key').focus();
  } else say(String(error), true);
}

// ---------- who am I, stats ----------

async function refreshStats() {
  try {
    const [s, me] = await Promise.all([api('GET', '/v1/stats'), api('GET', '/v1/whoami')]);
    state.me = me;
    $('whoami').textContent =
      `space ${s.space} · agent ${me.agentId} (${me.role}) · ${getKey() ? 'key in use' : 'no key (open server)'}`;
    const rows = [
      el(
        'tr',
        {},
        el('th', { text: 'memories' }),
        el('td', { text: String(s.documents) }),
        el('td', { text: `${s.chunks} chunks` }),
      ),
      ...Object.entries(s.bySource).map(([k, v]) => el('tr', {}, el('th', { text: k }), el('td', { text: String(v) }))),
      ...Object.entries(s.byScope).map(([k, v]) =>
        el('tr', {}, el('th', { text: `scope ${k}` }), el('td', { text: String(v) })),
      ),
    ];
    $('stats').replaceChildren(el('table', {}, el('tbody', {}, ...rows)));
    return true;
  } catch (error) {
    $('stats').replaceChildren();
    if (error instanceof ApiError && error.status === 401) {
      $('whoami').textContent = 'paste an API key to start';
      say('This server needs an API key: paste one above (mem keys create prints it).');
      return false;
    }
    fail(error);
    return false;
  }
}

// ---------- search and browse ----------

function filters() {
  const tags = $('f-tags')
    .value.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const f = {};
  if ($('f-scope').value) f.scope = $('f-scope').value;
  if ($('f-source').value) f.source = $('f-source').value;
  if ($('f-prefix').value.trim()) f.keyPrefix = $('f-prefix').value.trim();
  if (tags.length) f.tags = tags;
  return f;
}

function tagList(tags) {
  return tags.map((t) => el('span', { class: 'tag', text: `#${t}` }));
}

function renderResults(items, withScores) {
  const list = $('results');
  list.replaceChildren();
  if (items.length === 0) {
    list.append(el('li', { text: 'No memories found.', 'data-testid': 'no-results' }));
    return;
  }
  for (const r of items) {
    const li = el(
      'li',
      { tabIndex: 0, 'data-testid': 'result', 'data-id': r.id },
      el('div', { class: 'r-name', text: r.name }),
      el('div', { class: 'r-meta' }, `${r.key} · ${r.scope} · ${r.source} · owner ${r.agentId} `, ...tagList(r.tags)),
      withScores
        ? el('div', {
            class: 'r-scores',
            text: `score ${fmt(r.score)} · relevance ${fmt(r.relevance)} · similarity ${fmt(r.similarity)} · keyword rank ${r.keywordRank ?? '—'}`,
          })
        : null,
      el('div', { class: 'r-preview', text: (r.content ?? r.preview ?? '').replace(/\s+/g, ' ').slice(0, 240) }),
    );
    const open = () => {
      for (const x of list.children) x.classList.remove('selected');
      li.classList.add('selected');
      openMemory(r.id, withScores ? r : null);
    };
    li.addEventListener('click', open);
    li.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') open();
    });
    list.append(li);
  }
}

/** Re-run what the list shows (after a change), keeping the open memory highlighted. */
async function refreshList() {
  await ($('query').value.trim() ? search() : browse());
  for (const li of $('results').children) if (li.dataset.id === state.selected) li.classList.add('selected');
}

async function search(event) {
  event?.preventDefault();
  const query = $('query').value.trim();
  if (!query) return browse();
  try {
    say('');
    const { results } = await api('POST', '/v1/memories/search', { query, limit: 50, ...filters() });
    renderResults(results, true);
  } catch (error) {
    fail(error);
  }
}

async function browse() {
  try {
    say('');
    const f = filters();
    const params = new URLSearchParams({ limit: '100' });
    for (const [k, v] of Object.entries(f)) params.set(k, Array.isArray(v) ? v.join(',') : v);
    const { memories, matched } = await api('GET', `/v1/memories?${params}`);
    renderResults(memories, false);
    if (matched > memories.length) say(`Showing the newest ${memories.length} of ${matched} memories.`);
  } catch (error) {
    fail(error);
  }
}

// ---------- one memory ----------

async function openMemory(id, scores) {
  state.selected = id;
  state.scores = scores;
  try {
    const [doc, { versions }] = await Promise.all([
      api('GET', `/v1/memories/${encodeURIComponent(id)}?peek=true`),
      api('GET', `/v1/memories/${encodeURIComponent(id)}/versions`),
    ]);
    renderDetail(doc, versions, scores);
    await renderWhy({ api, el, $ }, doc);
  } catch (error) {
    fail(error);
  }
}

function renderDetail(doc, versions, scores) {
  $('detail').hidden = false;
  $('d-name').textContent = reveal(doc.name);
  const meta = [
    ['id', doc.id],
    ['key', doc.key],
    ['owner', doc.agentId],
    ['scope', doc.scope],
    ['source', doc.source],
    ['tags', doc.tags.length ? doc.tags.join(', ') : '—'],
    ['version', String(doc.version)],
    ['created', doc.createdAt],
    ['updated', doc.updatedAt],
    ['expires', doc.expiresAt ?? 'never'],
    ['accessed', `${doc.accessCount}×${doc.lastAccessedAt ? ` (last ${doc.lastAccessedAt})` : ''}`],
    ['usefulness', `${fmt(doc.usefulness, 2)} (α ${doc.alpha}, β ${doc.beta})`],
    ['embedding', doc.embeddingModel ?? '—'],
  ];
  $('d-meta').replaceChildren(
    ...meta.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v, 'data-testid': `meta-${k}` })]),
  );
  $('d-scores').replaceChildren(
    ...(scores
      ? [
          el(
            'div',
            { class: 'scores' },
            el('span', { text: `score ${fmt(scores.score)}` }),
            el('span', { text: `relevance ${fmt(scores.relevance)}` }),
            el('span', { text: `similarity ${fmt(scores.similarity)}` }),
            el('span', { text: `keyword rank ${scores.keywordRank ?? '—'}` }),
          ),
        ]
      : []),
  );
  $('d-content').textContent = reveal(doc.content);
  $('d-chunk-count').textContent = String(doc.chunkCount);
  $('d-chunks').replaceChildren(...doc.chunks.map((c) => el('li', {}, el('pre', { text: reveal(c.content) }))));
  $('e-content').value = doc.content;
  $('e-intent').value = '';
  $('m-key').value = doc.key;
  $('m-intent').value = '';
  const list = $('d-versions');
  list.replaceChildren();
  if (versions.length === 0) list.append(el('li', { text: 'No earlier versions.' }));
  for (const v of [...versions].reverse()) {
    list.append(
      el(
        'li',
        { 'data-testid': 'version' },
        el('div', { class: 'v-head', text: `v${v.version} → v${v.version + 1} · ${v.at} · by ${v.agentId}` }),
        el('div', { text: `intent: ${v.intent}`, 'data-testid': 'version-intent' }),
        el('div', { class: 'r-meta', text: `key then: ${v.oldKey}` }),
        el('pre', { text: v.oldContent }),
      ),
    );
  }
}

async function change(method, path, body, done) {
  if (!state.selected) return;
  try {
    const r = await api(method, path, body);
    await Promise.all([openMemory(state.selected, null), refreshStats(), refreshList()]);
    say(done(r));
  } catch (error) {
    fail(error);
  }
}

function onEdit(event) {
  event.preventDefault();
  const id = encodeURIComponent(state.selected);
  change(
    'PATCH',
    `/v1/memories/${id}`,
    { intent: $('e-intent').value, mode: 'replace', content: $('e-content').value },
    (r) => `Saved version ${r.version}.`,
  );
}

function onMove(event) {
  event.preventDefault();
  const id = encodeURIComponent(state.selected);
  change(
    'PATCH',
    `/v1/memories/${id}`,
    { intent: $('m-intent').value || 'moved in the inspector', newKey: $('m-key').value.trim() },
    (r) => `Moved to ${r.key}.`,
  );
}

function onRate(event) {
  event.preventDefault();
  const useful = event.submitter?.value !== 'false';
  const id = encodeURIComponent(state.selected);
  const note = $('r-note').value.trim();
  change(
    'POST',
    `/v1/memories/${id}/ratings`,
    { useful, taskId: $('r-task').value.trim() || 'inspector', ...(note ? { note } : {}) },
    (r) => `Rated: usefulness now ${fmt(r.usefulness, 2)}.`,
  );
}

async function onDelete() {
  if (!state.selected) return;
  if (!window.confirm('Delete this memory with all its chunks? Its history goes too.')) return;
  try {
    await api('DELETE', `/v1/memories/${encodeURIComponent(state.selected)}`);
    state.selected = null;
    $('detail').hidden = true;
    await Promise.all([refreshStats(), refreshList()]);
    say('Deleted.');
  } catch (error) {
    fail(error);
  }
}

// ---------- conversations and notebooks (shown when the server offers them) ----------

async function discover() {
  try {
    const doc = await api('GET', '/openapi.json');
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) if (op.operationId) state.operations.add(op.operationId);
      if (path.includes('/conversation')) state.operations.add('#conversations');
      if (path.includes('/notebook')) state.operations.add('#notebooks');
    }
  } catch {
    // The tabs explain themselves below.
  }
  const placeholder = (id, what) => {
    if (state.operations.has(`#${id}`)) return;
    $(id).replaceChildren(
      el('p', {
        text: `This server does not offer ${what} yet. They will appear here once the server lists their routes in /openapi.json.`,
      }),
    );
  };
  placeholder('conversations', 'conversations (transcripts and their archives)');
  placeholder('notebooks', 'notebooks (MEMORY.md and topic files)');
  if (state.operations.has('graph-neighbours')) {
    const graph = await import('./graph.js').catch(() => null);
    graph?.mountGraph({ api, el, $, say, fail });
  } else {
    $('graph').replaceChildren(
      el('p', {
        text: 'This server has no memory graph: its stores do not serve one (docs/graph.md), so /openapi.json lists no graph routes.',
        'data-testid': 'graph-missing',
      }),
    );
  }
  if (state.operations.has('#conversations') || state.operations.has('#notebooks')) {
    const more = await import('./extras.js').catch(() => null);
    more?.mount({ api, el, $, say, fail, operations: state.operations, me: () => state.me });
  }
}

function showTab(name) {
  for (const b of document.querySelectorAll('#tabs button'))
    b.setAttribute('aria-selected', String(b.dataset.tab === name));
  for (const t of document.querySelectorAll('main.tab')) t.hidden = t.id !== `tab-${name}`;
}

// ---------- start ----------

async function start() {
  $('api-key').value = getKey() ? '••••••••' : '';
  $('key-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = $('api-key').value.trim();
    if (v && !v.startsWith('•')) setKey(v);
    $('api-key').value = getKey() ? '••••••••' : '';
    say('');
    if (await refreshStats()) browse();
  });
  $('forget-key').addEventListener('click', () => {
    setKey('');
    $('api-key').value = '';
    $('results').replaceChildren();
    $('detail').hidden = true;
    refreshStats();
  });
  $('search-form').addEventListener('submit', search);
  $('browse').addEventListener('click', browse);
  $('edit-form').addEventListener('submit', onEdit);
  $('move-form').addEventListener('submit', onMove);
  $('rate-form').addEventListener('submit', onRate);
  $('delete').addEventListener('click', onDelete);
  const loadReview = mountReview({ api, el, $, say, fail });
  $('user').value = getUser();
  $('user').addEventListener('change', () => {
    setUser($('user').value.trim());
    refreshList();
  });
  for (const b of document.querySelectorAll('#tabs button'))
    b.addEventListener('click', () => {
      showTab(b.dataset.tab);
      if (b.dataset.tab === 'review') loadReview();
    });
  await discover();
  if (await refreshStats()) browse();
}

start();
