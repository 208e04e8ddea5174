// Conversations and notebooks in the inspector, loaded only when the server lists their routes.
// Every piece of stored text goes into the page with textContent (through `el`), never as HTML.

export function mount({ api, el, $, say, fail, operations, me }) {
  const agentPath = (agent) => `/v1/agents/${encodeURIComponent(agent)}`;

  // ---------- conversations ----------
  if (operations.has('#conversations')) {
    const box = $('conversations');
    const agentInput = el('input', { placeholder: 'agent', 'data-testid': 'convo-agent' });
    const agents = el('ul', { class: 'agents', 'data-testid': 'convo-agents' });
    const transcript = el('ol', { class: 'transcript', 'data-testid': 'convo-messages' });
    const archives = el('ul', { class: 'archives', 'data-testid': 'convo-archives' });
    const title = el('h3', { text: 'Transcript' });

    const showMessages = (messages) =>
      transcript.replaceChildren(
        ...(messages.length
          ? messages.map((m) =>
              el('li', {}, el('div', { class: 'r-meta', text: `${m.role} — ${m.at}` }), el('pre', { text: m.content })),
            )
          : [el('li', { text: 'No messages.' })]),
      );

    async function openAgent(agent) {
      if (!agent) return;
      agentInput.value = agent;
      try {
        const [{ messages }, { archives: list }] = await Promise.all([
          api('GET', `${agentPath(agent)}/conversation`),
          api('GET', `${agentPath(agent)}/conversation/archives`),
        ]);
        title.textContent = `Transcript of ${agent}`;
        showMessages(messages);
        archives.replaceChildren(
          ...(list.length
            ? list.map((a) => {
                const item = el('li', { tabIndex: 0, class: 'link', text: `${a.id} (${a.size} bytes)` });
                item.addEventListener('click', async () => {
                  try {
                    const t = await api('GET', `${agentPath(agent)}/conversation/archives/${encodeURIComponent(a.id)}`);
                    title.textContent = `Archive ${a.id} of ${agent}`;
                    showMessages(t.messages);
                  } catch (error) {
                    fail(error);
                  }
                });
                return item;
              })
            : [el('li', { text: 'No archives yet.' })]),
        );
      } catch (error) {
        fail(error);
      }
    }

    async function loadAgents() {
      try {
        const { agents: list } = await api('GET', '/v1/conversations');
        agents.replaceChildren(
          ...(list.length
            ? list.map((a) => {
                const item = el('li', { tabIndex: 0, class: 'link', text: a });
                item.addEventListener('click', () => openAgent(a));
                return item;
              })
            : [el('li', { text: 'No stored conversations you may see.' })]),
        );
      } catch (error) {
        fail(error);
      }
    }

    const form = el('form', { class: 'inline' }, agentInput, el('button', { type: 'submit', text: 'Open' }));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      openAgent(agentInput.value.trim());
    });
    const refresh = el('button', { type: 'button', class: 'secondary', text: 'Refresh agents' });
    refresh.addEventListener('click', loadAgents);
    box.replaceChildren(
      el('h3', { text: 'Agents' }),
      refresh,
      agents,
      form,
      title,
      transcript,
      el('h3', { text: 'Archives' }),
      archives,
    );
    document.querySelector('[data-tab="conversations"]')?.addEventListener('click', loadAgents);
  }

  // ---------- notebooks ----------
  if (operations.has('#notebooks')) {
    const box = $('notebooks');
    const agentInput = el('input', { placeholder: 'agent (default: you)', 'data-testid': 'nb-agent' });
    const files = el('ul', { class: 'files', 'data-testid': 'nb-files' });
    const fileName = el('input', { placeholder: 'MEMORY.md', 'data-testid': 'nb-file' });
    const editor = el('textarea', { rows: 14, 'data-testid': 'nb-content' });
    const status = el('div', { class: 'r-meta', 'data-testid': 'nb-status' });
    let loaded = { agent: null, file: null, content: '', version: null };

    const agent = () => agentInput.value.trim() || me()?.agentId || '';

    async function listFiles() {
      try {
        const r = await api('GET', `${agentPath(agent())}/notebook`);
        files.replaceChildren(
          ...(r.files.length
            ? r.files.map((f) => {
                const item = el('li', { tabIndex: 0, class: 'link', text: `${f.file} (${f.size} bytes)` });
                item.addEventListener('click', () => readFile(f.file));
                return item;
              })
            : [el('li', { text: 'No files yet: write MEMORY.md below.' })]),
        );
      } catch (error) {
        fail(error);
      }
    }

    async function readFile(file) {
      try {
        const r = await api('GET', `${agentPath(agent())}/notebook/file?file=${encodeURIComponent(file)}`);
        loaded = { agent: agent(), file: r.file, content: r.content, version: r.version };
        fileName.value = r.file;
        editor.value = r.content;
        status.textContent = `${r.file} · version ${r.version ?? 'new'} · ${r.size} bytes${r.truncated ? ' · cut (read on with offset)' : ''}`;
      } catch (error) {
        fail(error);
      }
    }

    async function save(e) {
      e.preventDefault();
      const file = fileName.value.trim() || 'MEMORY.md';
      const same = loaded.agent === agent() && loaded.file === file && loaded.content;
      const body = same
        ? {
            file,
            content: editor.value,
            oldText: loaded.content,
            ...(loaded.version ? { expectedVersion: loaded.version } : {}),
          }
        : { file, content: editor.value };
      try {
        const r = await api('POST', `${agentPath(agent())}/notebook`, body);
        await Promise.all([listFiles(), readFile(r.file)]);
        say(`${r.file}: ${r.status} (version ${r.version}).`);
      } catch (error) {
        fail(error);
      }
    }

    async function remove() {
      const file = fileName.value.trim();
      if (!file || !window.confirm(`Delete ${file}?`)) return;
      try {
        await api('DELETE', `${agentPath(agent())}/notebook/file?file=${encodeURIComponent(file)}`);
        loaded = { agent: null, file: null, content: '', version: null };
        editor.value = '';
        await listFiles();
        say(`Deleted ${file}.`);
      } catch (error) {
        fail(error);
      }
    }

    const open = el('form', { class: 'inline' }, agentInput, el('button', { type: 'submit', text: 'Open notebook' }));
    open.addEventListener('submit', (e) => {
      e.preventDefault();
      listFiles();
    });
    const saveForm = el(
      'form',
      { class: 'notebook-edit' },
      fileName,
      editor,
      el('div', { class: 'buttons' }, el('button', { type: 'submit', text: 'Save', 'data-testid': 'nb-save' })),
    );
    saveForm.addEventListener('submit', save);
    const del = el('button', { type: 'button', class: 'danger', text: 'Delete file' });
    del.addEventListener('click', remove);
    box.replaceChildren(open, el('h3', { text: 'Files' }), files, el('h3', { text: 'File' }), status, saveForm, del);
    document.querySelector('[data-tab="notebooks"]')?.addEventListener('click', listFiles);
  }
}
