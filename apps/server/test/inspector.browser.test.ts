import { join } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
} from '@mem/core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { ARTIFACTS, browserSkipped, launchBrowser } from './browser.js';
import { agentStack, call, testServer } from './helpers.js';

const skip = browserSkipped('the inspector browser test');

describe.skipIf(skip)('web inspector in headless Chromium', () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof testServer>>;
  let keys: KeyStore;
  let key: string;

  beforeAll(async () => {
    keys = KeyStore.open(':memory:');
    key = (await keys.create({ space: 'acme', agentId: 'ops', role: 'worker' })).key;
    server = await testServer({
      keys,
      stack: agentStack(),
    });
    for (const body of [
      {
        content: 'The nightly build publishes artifacts to the staging bucket at 02:00 UTC.',
        name: 'Nightly build artifacts',
        tags: ['ci', 'build'],
      },
      {
        content: 'Customer Acme prefers email over phone for incident updates.',
        key: '/longterm/facts/customers/acme-contact',
        scope: 'swarm',
      },
      {
        content: 'Runbook: restart the queue worker when the backlog exceeds 10k jobs.',
        source: 'file_index',
        tags: ['ops'],
      },
    ]) {
      expect((await call(server.url, 'POST', '/v1/memories', { key, body })).status).toBe(201);
    }
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    keys?.close();
  });

  it('a person pastes a key, searches, filters, opens a memory, edits it and sees the new version', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.inspectorUrl);
    await page.getByTestId('whoami').filter({ hasText: 'API key' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '1-needs-key.png') });

    await page.getByTestId('api-key').fill(key);
    await page.getByTestId('use-key').click();
    await page.getByTestId('whoami').filter({ hasText: 'space acme' }).waitFor();
    await expect.poll(() => page.getByTestId('result').count()).toBe(3);
    expect(await page.evaluate("sessionStorage.getItem('mem.apiKey')")).toBe(key);
    expect(await page.getByTestId('stats').innerText()).toContain('memories');

    // Filter by source: only the runbook.
    await page.getByTestId('filter-source').selectOption('file_index');
    await page.getByTestId('browse').click();
    await expect.poll(() => page.getByTestId('result').count()).toBe(1);
    expect(await page.getByTestId('result').first().innerText()).toContain('Runbook');
    await page.getByTestId('filter-source').selectOption('');

    // Search, open the best result: content, chunks and scores are shown.
    await page.getByTestId('query').fill('nightly build artifacts');
    await page.getByTestId('search').click();
    await page.getByTestId('result').first().filter({ hasText: 'Nightly build artifacts' }).waitFor();
    await page.getByTestId('result').first().click();
    await page.getByTestId('detail-name').filter({ hasText: 'Nightly build artifacts' }).waitFor();
    expect(await page.getByTestId('detail-scores').innerText()).toMatch(/score \d\.\d{3}/);
    expect(await page.getByTestId('detail-content').innerText()).toContain('02:00 UTC');
    await page.screenshot({ path: join(ARTIFACTS, '2-search-and-open.png'), fullPage: true });

    // Edit: a new version with its intent appears in the history.
    await page
      .getByTestId('edit-content')
      .fill('The nightly build publishes artifacts to the release bucket at 03:00 UTC.');
    await page.getByTestId('edit-intent').fill('moved to the release bucket');
    await page.getByTestId('save').click();
    await page.getByTestId('message').filter({ hasText: 'Saved version 2' }).waitFor();
    await page.getByTestId('version-intent').filter({ hasText: 'moved to the release bucket' }).waitFor();
    expect(await page.getByTestId('detail-content').innerText()).toContain('03:00 UTC');
    expect(await page.getByTestId('meta-version').innerText()).toBe('2');
    expect(await page.getByTestId('versions').innerText()).toContain('02:00 UTC');
    await page.screenshot({ path: join(ARTIFACTS, '3-edited-with-history.png'), fullPage: true });

    // The API agrees, and the inspector's reads did not count as accesses.
    const id = await page.getByTestId('meta-id').innerText();
    const doc = await call(server.url, 'GET', `/v1/memories/${id}?peek=1`, { key });
    expect(doc.body).toMatchObject({ version: 2, accessCount: 0, content: expect.stringContaining('03:00 UTC') });

    // A refused change shows the error code and message.
    await page.getByTestId('move-key').fill('/longterm/company-story');
    await page.getByTestId('move').click();
    await page.getByTestId('message').filter({ hasText: 'FORBIDDEN_KEY' }).waitFor();

    // Rate, then delete.
    await page.getByTestId('rate-up').click();
    await page.getByTestId('message').filter({ hasText: 'usefulness now' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('delete').click();
    await page.getByTestId('message').filter({ hasText: 'Deleted' }).waitFor();
    expect((await call(server.url, 'GET', `/v1/memories/${id}`, { key })).status).toBe(404);
    await page.screenshot({ path: join(ARTIFACTS, '4-after-delete.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('renders memory text as text, never as HTML', async () => {
    await call(server.url, 'POST', '/v1/memories', {
      key,
      body: { content: 'Beware <img src=x onerror="window.__pwned=1"> in templates.', name: '<b>markup</b> in a name' },
    });
    const page = await browser.newPage();
    await page.goto(server.inspectorUrl);
    await page.evaluate(`sessionStorage.setItem('mem.apiKey', ${JSON.stringify(key)})`);
    await page.reload();
    await page.getByTestId('result').filter({ hasText: '<b>markup</b> in a name' }).first().click();
    await page.getByTestId('detail-content').filter({ hasText: '<img src=x' }).waitFor();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await page.close();
  });

  it('browses conversations with their archives and edits a notebook', async () => {
    for (const [role, content] of [
      ['user', 'Rotate the staging certificates.'],
      ['assistant', 'Rotated; they expire in 90 days.'],
    ]) {
      await call(server.url, 'POST', '/v1/agents/ops/conversation/messages', { key, body: { role, content } });
    }
    await call(server.url, 'POST', '/v1/agents/ops/conversation/compact', {
      key,
      body: { summary: 'Certificates rotated.' },
    });
    await call(server.url, 'POST', '/v1/agents/ops/notebook', { key, body: { content: '- On-call: Dana this week.' } });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(server.inspectorUrl);
    await page.evaluate(`sessionStorage.setItem('mem.apiKey', ${JSON.stringify(key)})`);
    await page.reload();
    await page.getByTestId('whoami').filter({ hasText: 'agent ops' }).waitFor();

    await page.getByRole('tab', { name: 'Conversations' }).click();
    await page.getByTestId('convo-agents').getByText('ops').click();
    await page.getByTestId('convo-messages').filter({ hasText: 'Certificates rotated.' }).waitFor();
    await page.getByTestId('convo-archives').locator('li').first().click();
    await page.getByTestId('convo-messages').filter({ hasText: 'Rotate the staging certificates.' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '5-conversation-archive.png'), fullPage: true });

    await page.getByRole('tab', { name: 'Notebooks' }).click();
    await page.getByTestId('nb-files').getByText('MEMORY.md').click();
    await expect.poll(() => page.getByTestId('nb-content').inputValue()).toContain('Dana');
    await page.getByTestId('nb-content').fill('- On-call: Lee this week.');
    await page.getByTestId('nb-save').click();
    await page.getByTestId('message').filter({ hasText: 'MEMORY.md: updated' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, '6-notebook-edited.png'), fullPage: true });
    const read = await call(server.url, 'GET', '/v1/agents/ops/notebook/file', { key });
    expect(read.body.content).toContain('Lee this week');
    expect(read.body.content).not.toContain('Dana');
    await page.close();
  });

  it('reviews distilled proposals (approve, reject) and shows why a formed memory is believed', async () => {
    const formed = await testServer({
      keys,
      stack: createStack({
        knowledge: createInMemoryKnowledgeStore(),
        embedder: createHashingEmbedder(),
        transcripts: createInMemoryTranscriptStore(),
        structured: createInMemoryStructuredStores(),
      }),
    });
    try {
      const travel = (await keys.create({ space: 'trips', agentId: 'travel', role: 'worker' })).key;
      const as = { key: travel, headers: { 'x-mem-user': 'ben' } };
      const say = (id: string, content: string, at: string) => ({ id, role: 'user', content, at });
      const first = await call(formed.url, 'POST', '/v1/distill', {
        ...as,
        body: { messages: [say('turn-1', 'I prefer morning flights.', '2026-05-01T09:00:00Z')] },
      });
      expect(first.status).toBe(200);
      const queued = await call(formed.url, 'POST', '/v1/distill', {
        ...as,
        body: {
          review: true,
          messages: [
            say('turn-2', 'Actually, afternoon flights suit me better now.', '2026-05-08T09:00:00Z'),
            say('turn-3', 'I love jazz.', '2026-05-08T09:01:00Z'),
          ],
        },
      });
      expect(queued.body.queued).toHaveLength(2);

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(formed.inspectorUrl);
      await page.evaluate(
        `sessionStorage.setItem('mem.apiKey', ${JSON.stringify(travel)}); sessionStorage.setItem('mem.user', 'ben')`,
      );
      await page.reload();
      await page.getByTestId('whoami').filter({ hasText: 'agent travel' }).waitFor();
      await page.getByTestId('tab-review').click();
      const items = page.getByTestId('review-item');
      await items.filter({ hasText: 'User prefers afternoon flights.' }).waitFor();
      expect(await items.count()).toBe(2);
      await page.screenshot({ path: join(ARTIFACTS, '7-review-queue.png'), fullPage: true });
      await items.filter({ hasText: 'afternoon' }).getByTestId('review-approve').click();
      await page.getByTestId('message').filter({ hasText: 'Approved' }).waitFor();
      await items.filter({ hasText: 'jazz' }).getByTestId('review-reject').click();
      await page.getByTestId('review-empty').waitFor();

      await page.getByRole('tab', { name: 'Memories' }).click();
      await page.getByTestId('query').fill('flights');
      await page.getByTestId('search').click();
      await page.getByTestId('result').filter({ hasText: 'afternoon' }).first().click();
      await page.getByTestId('why-decision').first().waitFor();
      const evidence = await page.getByTestId('why-evidence').allTextContents();
      expect(evidence.join(' ')).toContain('turn-1');
      expect(evidence.join(' ')).toContain('turn-2');
      expect(await page.getByTestId('why-chain').count()).toBe(2);
      await page.screenshot({ path: join(ARTIFACTS, '8-why.png'), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
      // Only the approved proposal became a memory.
      const jazz = await call(formed.url, 'POST', '/v1/memories/search', { ...as, body: { query: 'jazz' } });
      expect(jazz.body.results.map((r: { content: string }) => r.content).join('\n')).not.toContain('jazz');
    } finally {
      await formed.close();
    }
  });
});
