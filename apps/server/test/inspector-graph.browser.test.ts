/**
 * The inspector's Graph tab in headless Chromium: a small graph seeded through the real HTTP routes, searched, drawn
 * around Alice at 1 and 2 hops (nodes and edge labels read from the SVG), re-centred on Bob by a click, opened by an
 * alias, with the side panel's observations, aliases and history; and a server without a graph says so.
 */
import { join } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
} from '@mem/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { ARTIFACTS, browserSkipped, launchBrowser } from './browser.js';
import { call, testServer } from './helpers.js';

const skip = browserSkipped('the inspector graph browser test');

/** What the SVG shows: the centre, every node's name and every edge as "from —type→ to", both sorted. */
async function drawn(page: Page) {
  return page.getByTestId('graph-svg').evaluate((svg) => ({
    centre: svg.getAttribute('data-centre'),
    hops: svg.getAttribute('data-hops'),
    nodes: [...svg.querySelectorAll('[data-testid="graph-node"]')].map((n) => n.getAttribute('data-name')).sort(),
    edges: [...svg.querySelectorAll('[data-testid="graph-edge"]')]
      .map(
        (g) =>
          `${g.getAttribute('data-from')} —${g.querySelector('[data-testid="graph-edge-label"]')?.textContent}→ ${g.getAttribute('data-to')}`,
      )
      .sort(),
  }));
}

describe.skipIf(skip)('the inspector’s Graph tab in headless Chromium', () => {
  let browser: Browser;
  let keys: KeyStore;

  beforeAll(async () => {
    keys = KeyStore.open(':memory:');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    keys?.close();
  });

  it('searches, draws Alice at 1 and 2 hops, re-centres on Bob, opens by alias and shows the history', async () => {
    const server = await testServer({
      keys,
      stack: createStack({
        knowledge: createInMemoryKnowledgeStore(),
        embedder: createHashingEmbedder(),
        structured: createInMemoryStructuredStores(),
      }),
    });
    try {
      const key = (await keys.create({ space: 'people', agentId: 'scribe', role: 'worker' })).key;
      const entities = await call(server.url, 'POST', '/v1/graph/entities', {
        key,
        body: {
          entities: [
            { name: 'Alice', entityType: 'person', observations: ['Writes the compiler'] },
            { name: 'Acme', entityType: 'organization', observations: ['Makes anvils'] },
            { name: 'Bob', entityType: 'person', observations: ['Plays the cello'] },
            { name: 'Paris', entityType: 'city', observations: [] },
            { name: 'Robert', entityType: 'person', observations: ['Goes by Bob at work'] },
          ],
        },
      });
      expect(entities.status).toBe(201);
      const relations = await call(server.url, 'POST', '/v1/graph/relations', {
        key,
        body: {
          relations: [
            { from: 'Alice', to: 'Acme', relationType: 'works_at' },
            { from: 'Alice', to: 'Bob', relationType: 'knows' },
            { from: 'Bob', to: 'Paris', relationType: 'lives_in' },
          ],
        },
      });
      expect(relations.status).toBe(201);
      expect(relations.body.relations).toHaveLength(3);
      // Robert and Bob are one person: Robert becomes an alias of Bob, its observation moves over.
      const merged = await call(server.url, 'POST', '/v1/graph/merge', {
        key,
        body: { entity: 'Robert', into: 'Bob' },
      });
      expect(merged.status).toBe(200);

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // Console errors too (a Content-Security-Policy refusal shows there), but for the answers of refused requests.
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
      });
      await page.goto(server.inspectorUrl);
      await page.evaluate(`sessionStorage.setItem('mem.apiKey', ${JSON.stringify(key)})`);
      await page.reload();
      await page.getByTestId('whoami').filter({ hasText: 'agent scribe' }).waitFor();
      await page.getByTestId('tab-graph').click();

      // Shown with an empty query, the tab lists every entity (Robert was merged away).
      const listed = page.getByTestId('graph-result');
      await expect.poll(() => listed.count()).toBe(4);
      expect((await listed.allTextContents()).join(' ')).not.toContain('Robert');
      await page.getByTestId('graph-empty').filter({ hasText: 'choose an entity' }).waitFor();

      // A search with no match says so; a name that is no entity is an error in the message bar.
      await page.getByTestId('graph-query').fill('zeppelin');
      await page.getByTestId('graph-search').click();
      await page.getByTestId('graph-no-results').filter({ hasText: 'No entities match' }).waitFor();
      await page.getByTestId('graph-open').click();
      await page.getByTestId('message').filter({ hasText: 'NOT_FOUND' }).waitFor();

      // Search, choose Alice: 1 hop draws Acme and Bob, not Paris.
      await page.getByTestId('graph-query').fill('compiler');
      await page.getByTestId('graph-search').click();
      await listed.filter({ hasText: 'Alice' }).first().waitFor();
      expect(await listed.count()).toBe(1);
      await listed.filter({ hasText: 'Alice' }).click();
      await page.locator('[data-testid="graph-svg"][data-centre="Alice"][data-hops="1"]').waitFor();
      expect(await drawn(page)).toEqual({
        centre: 'Alice',
        hops: '1',
        nodes: ['Acme', 'Alice', 'Bob'],
        edges: ['Alice —knows→ Bob', 'Alice —works_at→ Acme'],
      });
      expect(await page.locator('[data-testid="graph-node"][data-name="Alice"]').getAttribute('data-hops')).toBe('0');
      expect(await page.getByTestId('graph-detail-name').innerText()).toBe('Alice');
      expect(await page.getByTestId('graph-observations').innerText()).toContain('Writes the compiler');
      expect(await page.getByTestId('graph-status').innerText()).toContain('2 entities within 1 hop');
      expect(await page.getByTestId('graph-empty').isVisible()).toBe(false);

      // 2 hops: Paris, through Bob, too.
      await page.getByTestId('graph-hops').selectOption('2');
      await page.locator('[data-testid="graph-svg"][data-centre="Alice"][data-hops="2"]').waitFor();
      expect(await drawn(page)).toEqual({
        centre: 'Alice',
        hops: '2',
        nodes: ['Acme', 'Alice', 'Bob', 'Paris'],
        edges: ['Alice —knows→ Bob', 'Alice —works_at→ Acme', 'Bob —lives_in→ Paris'],
      });
      expect(await page.locator('[data-testid="graph-node"][data-name="Paris"]').getAttribute('data-hops')).toBe('2');
      // Every node lies inside the drawing, none on top of another.
      const boxes = await page
        .locator('[data-testid="graph-node"] circle')
        .evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect().toJSON()));
      const frame = (await page.getByTestId('graph-svg').boundingBox())!;
      for (const b of boxes) {
        expect(b.left).toBeGreaterThanOrEqual(frame.x);
        expect(b.right).toBeLessThanOrEqual(frame.x + frame.width);
      }
      const centres = boxes.map((b) => `${Math.round(b.left + b.width / 2)},${Math.round(b.top + b.height / 2)}`);
      expect(new Set(centres).size).toBe(boxes.length);
      await page.screenshot({ path: join(ARTIFACTS, 'inspector-graph-alice.png'), fullPage: true });

      // Clicking Bob re-centres on him: at 2 hops Alice and Paris are next to him, Acme beyond Alice.
      await page.locator('[data-testid="graph-node"][data-name="Bob"]').click();
      await page.locator('[data-testid="graph-svg"][data-centre="Bob"]').waitFor();
      const bob = await drawn(page);
      expect(bob.nodes).toEqual(['Acme', 'Alice', 'Bob', 'Paris']);
      expect(bob.edges).toEqual(['Alice —knows→ Bob', 'Alice —works_at→ Acme', 'Bob —lives_in→ Paris']);
      const hopOf = (name: string) =>
        page.locator(`[data-testid="graph-node"][data-name="${name}"]`).getAttribute('data-hops');
      expect([await hopOf('Bob'), await hopOf('Alice'), await hopOf('Paris'), await hopOf('Acme')]).toEqual([
        '0',
        '1',
        '1',
        '2',
      ]);
      await page.getByTestId('graph-detail-name').filter({ hasText: 'Bob' }).waitFor();
      const observations = await page.getByTestId('graph-observations').innerText();
      expect(observations).toContain('Plays the cello');
      expect(observations).toContain('Goes by Bob at work');
      expect(await page.getByTestId('graph-aliases').innerText()).toContain('Robert');
      const log = await page.getByTestId('graph-log').allTextContents();
      expect(log.some((l) => l.includes('merge'))).toBe(true);
      expect(log.every((l) => l.includes('agent scribe'))).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, 'inspector-graph.png'), fullPage: true });

      // Back returns to Alice; typing the alias opens Bob again.
      await page.getByTestId('graph-back').click();
      await page.locator('[data-testid="graph-svg"][data-centre="Alice"]').waitFor();
      await page.getByTestId('graph-query').fill('robert');
      await page.getByTestId('graph-open').click();
      await page.locator('[data-testid="graph-svg"][data-centre="Bob"]').waitFor();
      expect(await page.getByTestId('graph-detail-name').innerText()).toBe('Bob');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await server.close();
    }
  });

  it('a server whose stores have no graph says so in the Graph tab', async () => {
    const server = await testServer();
    try {
      const page = await browser.newPage();
      await page.goto(server.inspectorUrl);
      await page.getByTestId('tab-graph').click();
      await page.getByTestId('graph-missing').filter({ hasText: 'no memory graph' }).waitFor();
      expect(await page.getByTestId('graph-svg').count()).toBe(0);
      await page.close();
    } finally {
      await server.close();
    }
  });
});
