/**
 * The offline statement extractor (issue 33 §3b, §4): only what the user says is read, untrusted content never unless
 * allowed, each message against its own time, the order of the messages kept, a repeated statement one proposal.
 */
import { describe, expect, it } from 'vitest';
import {
  createOfflineStatementExtractor,
  type DistillMessage,
  decideFormation,
  type FormedMemory,
} from '../src/adapter.js';

const message = (
  id: string,
  role: DistillMessage['role'],
  content: string,
  at = '2024-05-15T10:00:00Z',
  untrusted?: boolean,
): DistillMessage => ({
  id,
  role,
  content,
  at,
  ...(untrusted === undefined ? {} : { untrusted }),
});

const extractor = createOfflineStatementExtractor();

describe('createOfflineStatementExtractor', () => {
  it('names itself for the decision log', () => {
    expect(extractor).toMatchObject({ id: 'offline', model: null, promptVersion: 'offline-2' });
  });

  it('reads the user only: not the assistant, the system or tool results, nor anything untrusted', async () => {
    const { proposals, failures } = await extractor.extract({
      related: [],
      messages: [
        message('m1', 'system', 'I am a helpful assistant. I live in the cloud.'),
        message('m2', 'assistant', 'I love helping! I prefer short answers.'),
        message('m3', 'tool', 'I live in Paris. (a fetched page)'),
        message('m4', 'user', 'I live in Berlin. (pasted from an email)', undefined, true),
        message('m5', 'user', 'I prefer morning flights.'),
      ],
    });
    expect(failures).toEqual([]);
    expect(proposals.map((p) => [p.attribute, p.value, p.evidence])).toEqual([
      ['preference.flight', 'morning flights', ['m5']],
    ]);
    const allowed = await extractor.extract({
      related: [],
      allowUntrusted: true,
      messages: [
        message('m3', 'tool', 'I live in Paris.'),
        message('m4', 'user', 'I live in Berlin.', undefined, true),
      ],
    });
    expect(allowed.proposals.map((p) => [p.value, p.evidence])).toEqual([
      ['Paris', ['m3']],
      ['Berlin', ['m4']],
    ]);
  });

  it('resolves each message against its own time, not the time of distillation', async () => {
    const { proposals } = await extractor.extract({
      related: [],
      messages: [
        message('a', 'user', "I'm moving to Rome next month.", '2023-11-20T09:00:00Z'),
        message('b', 'user', 'I started at Acme yesterday', '2024-02-29T09:00:00Z'),
      ],
    });
    expect(proposals.map((p) => [p.attribute, p.validFrom])).toEqual([
      ['residence', '2023-12-01'],
      ['employer', '2024-02-28'],
    ]);
  });

  it('keeps the order of what was said and gathers the evidence of a repeated statement', async () => {
    const { proposals } = await extractor.extract({
      related: [],
      messages: [
        message('1', 'user', 'I live in Berlin.'),
        message('2', 'user', "Yes, I'm based in Berlin"),
        message('3', 'user', "I've moved to Lisbon"),
        message('4', 'user', 'I live in Berlin again'),
      ],
    });
    expect(proposals.map((p) => [p.value, p.evidence])).toEqual([
      ['Berlin', ['1', '2']],
      ['Lisbon', ['3']],
      ['Berlin', ['4']],
    ]);
  });

  it('takes the flight example through the decision rule: the change of mind supersedes', async () => {
    const first = await extractor.extract({
      related: [],
      messages: [message('t1', 'user', 'I prefer morning flights.', '2024-05-01T08:00:00Z')],
    });
    const current: FormedMemory[] = first.proposals.map((p, i) => ({ ...p, id: `mem${i}` }));
    const second = await extractor.extract({
      related: current,
      messages: [message('t2', 'user', 'Actually, afternoon flights suit me better now.', '2024-05-08T08:00:00Z')],
    });
    expect(second.proposals).toHaveLength(1);
    expect(decideFormation(second.proposals[0]!, current)).toEqual({ decision: 'update', supersedes: 'mem0' });
    expect(second.proposals[0]).toMatchObject({ statement: 'User prefers afternoon flights.', evidence: ['t2'] });
  });
});
