/**
 * Lost-update races between an edit and the counters other writers change meanwhile (found by the concurrency
 * soak of `crash/`). An edit reads a document, embeds the new text, then replaces the chunks if the version still
 * holds; ratings and reads do not change the version, so a rating (or a read) that lands between the edit's read and
 * its write must still count afterwards. The interleaving is forced: the editing store runs the other writer's call
 * right before it replaces the chunks. Runs on adapters whose fixture can open a second, independent instance.
 */
import { createHashingEmbedder, KnowledgeService, type Principal } from '@mem/core';
import { type KnowledgeStore, systemClock } from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import type { KnowledgeStoreFactory, KnowledgeStoreFixture } from './knowledge/index.js';

/** `store`, except that `before()` runs (and is awaited) when replaceDocument is called, before the write. */
function interceptReplace(store: KnowledgeStore, before: () => Promise<void>): KnowledgeStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'replaceDocument') {
        return async (...args: Parameters<KnowledgeStore['replaceDocument']>) => {
          await before();
          return target.replaceDocument(...args);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const alice: Principal = { space: 'races', agentId: 'alice', role: 'lead' };

export function describeKnowledgeCounterRaces(name: string, factory: KnowledgeStoreFactory): void {
  describe(`${name}: counters changed by another writer during an edit`, () => {
    const open: { close(): Promise<void> }[] = [];
    let fixture: KnowledgeStoreFixture | undefined;
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close();
      await fixture?.cleanup();
      fixture = undefined;
    });

    async function setup(during: (other: KnowledgeService, id: string) => Promise<void>) {
      fixture = await factory();
      if (!fixture.openAnother) throw new Error(`${name}: the fixture cannot open a second instance`);
      const second = await fixture.openAnother();
      open.push(second);
      const embedder = createHashingEmbedder({ dimension: 64 });
      const other = new KnowledgeService({ store: second, embedder, clock: systemClock });
      let id = '';
      let armed = false;
      const store = interceptReplace(fixture.store, async () => {
        if (!armed) return;
        armed = false;
        await during(other, id);
      });
      const editor = new KnowledgeService({ store, embedder, clock: systemClock });
      const p = alice;
      id = (await editor.store(p, { content: 'The deploy runs at noon.', key: '/notes/deploy', scope: 'swarm' })).id;
      armed = true;
      return { editor, other, p, id };
    }

    it('a rating given between the read and the write of an edit still counts', async () => {
      const { editor, other, p, id } = await setup(async (o, doc) => {
        await o.rate({ space: 'races', agentId: 'bob', role: 'worker' }, { id: doc, useful: true, taskId: 't1' });
      });
      await editor.edit(p, { id, intent: 'new time', content: 'The deploy runs at one.' });
      const after = await other.peek(p, { id });
      expect(after.content).toBe('The deploy runs at one.');
      expect(after.version).toBe(2);
      expect({ alpha: after.alpha, beta: after.beta }).toEqual({ alpha: 2, beta: 1 });
    });

    it('a read counted between the read and the write of an edit still counts', async () => {
      const { editor, other, p, id } = await setup(async (o, doc) => {
        await o.get(alice, { id: doc });
      });
      await editor.edit(p, { id, intent: 'new time', content: 'The deploy runs at two.' });
      const after = await other.peek(p, { id });
      expect(after.version).toBe(2);
      expect(after.accessCount).toBe(1);
      expect(after.lastAccessedAt).not.toBeNull();
    });
  });
}
