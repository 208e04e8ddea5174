import { createHashingEmbedder } from '@mem/core';
import { describe, expect, it } from 'vitest';
import { label, openLangGraph } from '../src/peers/langgraph.js';

describe('the LangGraph bench peer', () => {
  it('works on any dataset id: ids with periods become valid, distinct namespace labels', async () => {
    const peer = await openLangGraph({ embedder: createHashingEmbedder(), dir: '' });
    await peer.ingest([
      { id: 'a', text: 'The staging database resets every Sunday.', namespace: 'conv.26' },
      { id: 'b', text: 'The staging database resets every Monday.', namespace: 'conv%2E26' },
      { id: 'c', text: 'Lunch is at noon.', namespace: 'team.x', owner: 'ann.lee', shared: false },
    ]);
    expect(await peer.search('staging database resets', 5, 'conv.26')).toEqual(['a']);
    expect(await peer.search('staging database resets', 5, 'conv%2E26')).toEqual(['b']);
    expect(await peer.search('lunch', 5, 'team.x', 'ann.lee')).toEqual(['c']);
    expect(await peer.search('lunch', 5, 'team.x', 'bob')).toEqual([]);
    expect(label('x.y')).not.toBe(label('x%2Ey'));
    await peer.close();
  });
});
