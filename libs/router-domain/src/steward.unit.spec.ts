import type { ProposalView } from '@dirigent/contracts';
import {
  decideModChannel,
  decideProposal,
  evolveModChannel,
  evolveProposal,
  foldProposal,
  holdsClaim,
  initialModChannelState,
  proposalIdIn,
  proposalText,
  type ModChannelCommand,
  type ModChannelState,
  type ProposalCommand,
  type ProposalEvent,
  type ProposalState,
} from './steward';

const requested: ProposalEvent = {
  type: 'ProposalRequested',
  data: {
    proposalId: 'p1',
    guildId: '1',
    channelId: '2',
    skillId: 'create_channel',
    tool: 'create_channel',
    args: { name: 'lore' },
    reason: 'a topic of its own',
    requestedBy: { agentId: 'dit' },
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  },
};

const given = (...events: ProposalEvent[]): ProposalState => foldProposal([events]);
const when = (s: ProposalState, c: ProposalCommand) => decideProposal(c, s);
const types = (events: ProposalEvent[]) => events.map((e) => e.type);
const before = '2026-01-01T12:00:00.000Z';
const after = '2026-01-02T00:00:00.000Z';

describe('proposal decider', () => {
  it('is requested once, pending, with its expiry', () => {
    const events = when(given(), { type: 'RequestProposal', data: requested.data });
    expect(types(events)).toEqual(['ProposalRequested']);
    const s = events.reduce(evolveProposal, given());
    expect(s.view).toMatchObject({ status: 'pending', expiresAt: requested.data.expiresAt });
    expect(when(s, { type: 'RequestProposal', data: requested.data })).toEqual([]);
  });

  it('records its post once', () => {
    const post = { type: 'RecordPost', modChannelId: '3', messageId: '4', at: before } as const;
    const posted = given(requested, ...when(given(requested), post));
    expect(posted.view).toMatchObject({ modChannelId: '3', messageId: '4' });
    expect(when(posted, { ...post, messageId: '5' })).toEqual([]);
  });

  it('is approved or rejected while pending, by whom', () => {
    const approve = { type: 'DecideProposal', approve: true, by: '9', at: before } as const;
    const approved = given(requested, ...when(given(requested), approve));
    expect(approved.view).toMatchObject({ status: 'approved', decidedBy: '9' });
    expect(when(approved, { ...approve, approve: false })).toEqual([]);
    const rejected = given(requested, ...when(given(requested), { ...approve, approve: false }));
    expect(rejected.view).toMatchObject({ status: 'rejected', decidedBy: '9' });
    expect(when(rejected, approve)).toEqual([]);
  });

  it('expires when due and only while pending; a late decision expires it', () => {
    expect(when(given(requested), { type: 'ExpireProposal', at: before })).toEqual([]);
    const expired = when(given(requested), { type: 'ExpireProposal', at: after });
    expect(types(expired)).toEqual(['ProposalExpired']);
    const late = when(given(requested), {
      type: 'DecideProposal',
      approve: true,
      by: '9',
      at: after,
    });
    expect(types(late)).toEqual(['ProposalExpired']);
    const approved = given(requested, { type: 'ProposalApproved', data: { by: '9', at: before } });
    expect(when(approved, { type: 'ExpireProposal', at: after })).toEqual([]);
  });

  it('records one outcome, only after approval', () => {
    const outcome = {
      type: 'RecordOutcome',
      ok: true,
      result: { channelId: '7' },
      at: before,
    } as const;
    expect(when(given(requested), outcome)).toEqual([]);
    const approvedEvent: ProposalEvent = {
      type: 'ProposalApproved',
      data: { by: '9', at: before },
    };
    const approved = given(requested, approvedEvent);
    const done = given(requested, approvedEvent, ...when(approved, outcome));
    expect(done.view).toMatchObject({ status: 'executed', result: { channelId: '7' } });
    expect(when(done, outcome)).toEqual([]);
    const failed = when(approved, { type: 'RecordOutcome', ok: false, error: 'nope', at: before });
    expect(given(requested, approvedEvent, ...failed).view).toMatchObject({
      status: 'failed',
      error: 'nope',
    });
  });

  it('names its action and arguments in its post, and is recognised by it', () => {
    const view = given(requested).view as ProposalView;
    const text = proposalText(view);
    expect(text).toContain('create_channel');
    expect(text).toContain('"name":"lore"');
    expect(proposalIdIn(text)).toBe('p1');
    expect(proposalIdIn(`quoted: ${text}`)).toBeUndefined();
  });
});

describe('mod channel decider', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const run = (s: ModChannelState, c: ModChannelCommand) =>
    decideModChannel(c, s).reduce(evolveModChannel, s);

  it('grants one claim at a time; a stale claim can be taken over', () => {
    const a = run(initialModChannelState(), {
      type: 'ClaimModChannel',
      claimId: 'a',
      at,
      leaseMs: 1000,
    });
    expect(holdsClaim(a, 'a')).toBe(true);
    const b = run(a, { type: 'ClaimModChannel', claimId: 'b', at, leaseMs: 1000 });
    expect(holdsClaim(b, 'b')).toBe(false);
    const later = '2026-01-01T00:00:01.000Z';
    expect(
      holdsClaim(run(a, { type: 'ClaimModChannel', claimId: 'c', at: later, leaseMs: 1000 }), 'c'),
    ).toBe(true);
  });

  it('once recorded, no one claims again unless the channel is gone', () => {
    const ready = run(initialModChannelState(), { type: 'RecordModChannel', channelId: '5', at });
    expect(ready.channelId).toBe('5');
    expect(
      decideModChannel({ type: 'ClaimModChannel', claimId: 'x', at, leaseMs: 1 }, ready),
    ).toEqual([]);
    expect(decideModChannel({ type: 'RecordModChannel', channelId: '5', at }, ready)).toEqual([]);
    const again = run(ready, { type: 'ClaimModChannel', claimId: 'x', at, leaseMs: 1, gone: '5' });
    expect(holdsClaim(again, 'x')).toBe(true);
  });
});
