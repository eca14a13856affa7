import type { IdentityCommand, IdentityEvent, IdentityState } from './identity';
import {
  decideIdentity,
  evolveIdentity,
  initialIdentityState,
  parseEgoJson,
  parseIdentityFile,
  resolveAgents,
} from './identity';

function given(...events: IdentityEvent[]) {
  const state = events.reduce(evolveIdentity, initialIdentityState());
  return {
    state,
    when(command: IdentityCommand) {
      const d = decideIdentity(command, state);
      const after: IdentityState = d.ok ? d.events.reduce(evolveIdentity, state) : state;
      return { decision: d, state: after };
    },
  };
}

const upserted = (discordUserId: string, agentId: string, agentName = agentId): IdentityEvent => ({
  type: 'IdentityUpserted',
  data: { discordUserId, agentId, agentName, source: 'admin' },
});

describe('identity registry', () => {
  it('admin upsert adds an entry, name defaulting to the agent id', () => {
    const { decision, state } = given().when({
      type: 'UpsertIdentity',
      data: { discordUserId: '123456789012345678', agentId: 'home-developer' },
    });
    expect(decision).toEqual({
      ok: true,
      events: [
        {
          type: 'IdentityUpserted',
          data: {
            discordUserId: '123456789012345678',
            agentId: 'home-developer',
            agentName: 'home-developer',
            source: 'admin',
          },
        },
      ],
    });
    expect(state.entries).toHaveLength(1);
  });

  it.each([
    [{ discordUserId: 'abc', agentId: 'x' }, 'discordUserId'],
    [{ discordUserId: '', agentId: 'x' }, 'discordUserId'],
    [{ discordUserId: '123', agentId: '' }, 'agentId'],
    [{ discordUserId: '123', agentId: 'has space' }, 'agentId'],
    // The wire's rule: `.` would split a subject token, so such an id could never be called.
    [{ discordUserId: '123', agentId: 'home.dev' }, 'agentId'],
    [{ discordUserId: '123', agentId: 'a'.repeat(65) }, 'agentId'],
    [{ discordUserId: '123', agentId: 'x', agentName: 'n'.repeat(101) }, 'agentName'],
  ])('rejects %j with BAD_REQUEST on %s', (data, field) => {
    const { decision } = given().when({ type: 'UpsertIdentity', data });
    expect(decision).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST', details: { field } },
    });
  });

  it('an identical upsert changes nothing; a rename updates in place', () => {
    const g = given(upserted('111', 'dev', 'Developer'));
    expect(
      g.when({
        type: 'UpsertIdentity',
        data: { discordUserId: '111', agentId: 'dev', agentName: 'Developer' },
      }).decision,
    ).toEqual({ ok: true, events: [] });
    const { state } = g.when({
      type: 'UpsertIdentity',
      data: { discordUserId: '111', agentId: 'dev', agentName: 'Dev' },
    });
    expect(state.entries).toEqual([{ discordUserId: '111', agentId: 'dev', agentName: 'Dev' }]);
  });

  it('moving an agent to another Discord account replaces its old entry', () => {
    const { decision, state } = given(upserted('111', 'dev')).when({
      type: 'UpsertIdentity',
      data: { discordUserId: '222', agentId: 'dev' },
    });
    expect(decision.ok && decision.events.map((e) => e.type)).toEqual([
      'IdentityRemoved',
      'IdentityUpserted',
    ]);
    expect(state.entries).toEqual([{ discordUserId: '222', agentId: 'dev', agentName: 'dev' }]);
  });

  it('register: an agent registers itself', () => {
    const { decision } = given().when({
      type: 'RegisterIdentity',
      data: { callerAgentId: 'researcher', discordUserId: '333', agentName: 'Researcher' },
    });
    expect(decision).toMatchObject({
      ok: true,
      events: [{ data: { agentId: 'researcher', agentName: 'Researcher', source: 'register' } }],
    });
  });

  it('register: an agent cannot register another agent', () => {
    const { decision } = given().when({
      type: 'RegisterIdentity',
      data: { callerAgentId: 'researcher', agentId: 'dev', discordUserId: '333' },
    });
    expect(decision).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it("register: an agent cannot take another agent's Discord account", () => {
    const { decision } = given(upserted('111', 'dev')).when({
      type: 'RegisterIdentity',
      data: { callerAgentId: 'researcher', discordUserId: '111' },
    });
    expect(decision).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it('remove by Discord id or agent id; unknown → NOT_FOUND', () => {
    const g = given(upserted('111', 'dev'), upserted('222', 'ops'));
    expect(
      g.when({ type: 'RemoveIdentity', data: { discordUserId: '111' } }).state.entries,
    ).toEqual([{ discordUserId: '222', agentId: 'ops', agentName: 'ops' }]);
    expect(g.when({ type: 'RemoveIdentity', data: { agentId: 'ops' } }).state.entries).toHaveLength(
      1,
    );
    expect(
      g.when({ type: 'RemoveIdentity', data: { discordUserId: '999' } }).decision,
    ).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(g.when({ type: 'RemoveIdentity', data: {} }).decision).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
  });

  it('import adds only unknown entries and skips invalid ones', () => {
    const { decision, state } = given(upserted('111', 'dev', 'Hand Edited')).when({
      type: 'ImportIdentities',
      data: {
        source: 'padded-cell',
        entries: [
          { discordUserId: '111', agentId: 'dev', agentName: 'From ego' },
          { discordUserId: '222', agentId: 'dev' },
          { discordUserId: 'bad', agentId: 'x' },
          { discordUserId: '444', agentId: 'home.dev' },
          { discordUserId: '333', agentId: 'ops' },
          { discordUserId: '333', agentId: 'ops2' },
        ],
      },
    });
    expect(decision.ok && decision.events).toEqual([
      {
        type: 'IdentityUpserted',
        data: { discordUserId: '333', agentId: 'ops', agentName: 'ops', source: 'padded-cell' },
      },
    ]);
    expect(state.entries[0].agentName).toBe('Hand Edited');
  });

  it('resolveAgents keeps only registered members, in member order', () => {
    const { state } = given(upserted('111', 'dev'), upserted('222', 'ops'));
    expect(resolveAgents(state, [{ userId: '222' }, { userId: '999' }, { userId: '111' }])).toEqual(
      [
        { agentId: 'ops', discordUserId: '222' },
        { agentId: 'dev', discordUserId: '111' },
      ],
    );
  });
});

describe('padded-cell ego.json and identity files', () => {
  it('skips entirely without a discord-id column', () => {
    expect(parseEgoJson({ columns: ['email'], agentScope: { a: { 'discord-id': '1' } } })).toEqual({
      present: false,
      entries: [],
    });
    expect(parseEgoJson(null)).toEqual({ present: false, entries: [] });
  });

  it('reads agentScope entries that have a discord id', () => {
    expect(
      parseEgoJson({
        columns: ['discord-id'],
        publicColumns: [],
        publicScope: {},
        agentScope: {
          'home-developer': { 'discord-id': '123456789012345678' },
          'home-researcher': { 'discord-id': '' },
          broken: 'nope',
        },
      }),
    ).toEqual({
      present: true,
      entries: [
        {
          agentId: 'home-developer',
          discordUserId: '123456789012345678',
          agentName: 'home-developer',
        },
      ],
    });
  });

  it('reads an identity file as an array or { entries }', () => {
    const entry = { discordUserId: '1', agentId: 'a', agentName: 'A' };
    expect(parseIdentityFile([entry])).toEqual([entry]);
    expect(parseIdentityFile({ entries: [entry, 42] })).toEqual([entry]);
    expect(parseIdentityFile('garbage')).toEqual([]);
  });
});

describe('identity registry: instance binding', () => {
  const register = (
    agentId: string,
    discordUserId: string,
    instance?: string,
  ): IdentityCommand => ({
    type: 'RegisterIdentity',
    data: { callerAgentId: agentId, discordUserId, ...(instance ? { instance } : {}) },
  });

  it('binds an agent to the relay it registers from, and keeps it there', () => {
    const { decision, state } = given().when(register('far', '111111111111111111', 'relay-a'));
    expect(decision.ok).toBe(true);
    expect(state.entries).toEqual([
      {
        discordUserId: '111111111111111111',
        agentId: 'far',
        agentName: 'far',
        instance: 'relay-a',
      },
    ]);
    const again = given(...(decision.ok ? decision.events : [])).when(
      register('far', '111111111111111111', 'relay-a'),
    );
    expect(again.decision).toEqual({ ok: true, events: [] });
  });

  it('refuses another relay or the master registering an agent bound elsewhere', () => {
    const bound: IdentityEvent = {
      type: 'IdentityUpserted',
      data: {
        discordUserId: '111111111111111111',
        agentId: 'far',
        agentName: 'far',
        instance: 'relay-a',
        source: 'register',
      },
    };
    for (const instance of ['relay-b', undefined]) {
      const { decision } = given(bound).when(register('far', '222222222222222222', instance));
      expect(decision).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    const { decision } = given(upserted('333333333333333333', 'home')).when(
      register('home', '333333333333333333', 'relay-a'),
    );
    expect(decision).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it('an admin upsert may bind to a relay; a bad instance name is BAD_REQUEST', () => {
    const ok = given().when({
      type: 'UpsertIdentity',
      data: { discordUserId: '444444444444444444', agentId: 'x', instance: 'relay-b' },
    });
    expect(ok.state.entries[0]).toMatchObject({ agentId: 'x', instance: 'relay-b' });
    const master = given().when({
      type: 'UpsertIdentity',
      data: { discordUserId: '444444444444444444', agentId: 'x', instance: 'master' },
    });
    expect(master.state.entries[0].instance).toBeUndefined();
    const bad = given().when({
      type: 'UpsertIdentity',
      data: { discordUserId: '444444444444444444', agentId: 'x', instance: 'Relay.B' },
    });
    expect(bad.decision).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });
});
