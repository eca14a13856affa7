import type { ProposalView } from '@dirigent/contracts';
import {
  decideModChannel,
  decideProposal,
  evolveModChannel,
  evolveProposal,
  foldProposal,
  holdsClaim,
  initialModChannelState,
  decisionRefusal,
  proposalIdIn,
  proposalLimitRefusal,
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

  it('counts a decision at the time it was made, even processed after the expiry', () => {
    const expired = given(requested, { type: 'ProposalExpired', data: { at: after } });
    const inTime = { type: 'DecideProposal', approve: true, by: '9', at: before } as const;
    const approved = given(
      requested,
      { type: 'ProposalExpired', data: { at: after } },
      ...when(expired, inTime),
    );
    expect(approved.view).toMatchObject({ status: 'approved', decidedBy: '9' });
    expect(when(expired, { ...inTime, at: after })).toEqual([]);
    expect(when(approved, inTime)).toEqual([]);
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
    expect(text).toContain('name: lore');
    expect(proposalIdIn(text)).toBe('p1');
    expect(proposalIdIn(`quoted: ${text}`)).toBeUndefined();
  });

  it('shows names, not ids, and mentions the moderators', () => {
    const view = {
      ...(given(requested).view as ProposalView),
      skillId: 'manage_roles',
      tool: 'manage_roles',
      args: { action: 'assign', roleName: 'regulars', userId: '77' },
      requestedBy: { agentId: 'dit', userId: '66' },
    };
    const text = proposalText(view, {
      channels: { '2': 'general' },
      members: { '66': 'Alice', '77': 'Bob' },
      mentionRoleIds: ['55'],
    });
    expect(text).toContain('from Alice (asked dit) in #general');
    expect(text).toContain('roleName: regulars, userId: Bob');
    expect(text).toContain('Manage Roles');
    expect(text).toContain('<@&55>');
    expect(text).not.toMatch(/\b(66|77)\b/);
  });
});

describe('who may decide, and the proposal limits', () => {
  const mod = { permissions: ['ManageGuild'], highestRolePosition: 3, owner: false };
  it('needs Manage Server; a role change also Manage Roles and a higher role', () => {
    expect(decisionRefusal({ skillId: 'create_channel' }, mod)).toBeUndefined();
    expect(decisionRefusal({ skillId: 'create_channel' }, { ...mod, permissions: [] })).toMatch(
      /Manage Server/,
    );
    expect(decisionRefusal({ skillId: 'manage_roles' }, mod)).toMatch(/Manage Roles/);
    const roles = { ...mod, permissions: ['ManageGuild', 'ManageRoles'] };
    expect(decisionRefusal({ skillId: 'manage_roles' }, roles, { name: 'r', position: 2 })).toBe(
      undefined,
    );
    expect(decisionRefusal({ skillId: 'manage_roles' }, roles, { name: 'r', position: 3 })).toMatch(
      /at or above your highest role/,
    );
    expect(decisionRefusal({ skillId: 'manage_roles' }, undefined)).toMatch(/member/);
  });

  it('refuses past the pending and per-member limits', () => {
    const limits = { pendingMax: 5, perMemberHour: 3 };
    expect(proposalLimitRefusal({ pending: 4, memberLastHour: 2 }, limits)).toBeUndefined();
    expect(proposalLimitRefusal({ pending: 5 }, limits)).toMatch(/5 proposals waiting/);
    expect(proposalLimitRefusal({ pending: 0, memberLastHour: 3 }, limits)).toMatch(/last hour/);
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
