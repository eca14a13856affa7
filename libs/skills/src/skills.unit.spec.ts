import type { MemoryHit, RoleInfo } from '@dirigent/contracts';
import { rollDice } from './dice';
import { SKILL_BUNDLE, SkillRunner, type SkillCall } from './registry';
import { journaled, PENDING, type EffectJournal } from './journal';
import { runToolLoop, type LoopAnswer } from './tool-loop';
import { SkillError, type DiscordActions, type ProposalRequest, type SkillMemory } from './types';

/** In-memory ports that record what the skills asked for. */
function ports(rights: Record<string, string[] | undefined> = {}, roles: RoleInfo[] = []) {
  const calls: { op: string; r: unknown }[] = [];
  const rec =
    <T>(op: string, out: T) =>
    async (r: unknown) => {
      calls.push({ op, r });
      return out;
    };
  const discord: DiscordActions = {
    createPoll: rec('createPoll', { messageId: '900000000000000001' }),
    createThread: rec('createThread', { threadId: '900000000000000002' }),
    pinMessage: rec('pinMessage', undefined),
    createChannel: rec('createChannel', { channelId: '900000000000000003' }),
    createRole: rec('createRole', { roleId: '900000000000000004' }),
    assignRole: rec('assignRole', undefined),
    setChannelPermissions: rec('setChannelPermissions', undefined),
    post: async (guildId, channelId, content, id) => {
      calls.push({ op: 'post', r: { guildId, channelId, content, id } });
    },
    botUserId: async () => '900000000000000009',
    member: async (_g, userId, channelId) => {
      if (userId === '900000000000000009')
        return { permissions: ['Administrator'], highestRolePosition: 9, owner: false };
      const p = rights[channelId ?? 'guild'];
      return p ? { permissions: p, highestRolePosition: 1, owner: false } : undefined;
    },
    roles: async () => roles,
  };
  const hit: MemoryHit = {
    layer: 'dossiers',
    id: 'd1',
    authorId: '700000000000000001',
    text: 'Ada likes rust',
    at: '2026-11-28T00:00:00.000Z',
    score: 1,
  };
  const memory: SkillMemory = {
    search: async (guildId, query, opts) => {
      calls.push({ op: 'search', r: { guildId, query, ...opts } });
      return [hit];
    },
    dossier: async (guildId, userId) => ({
      userId,
      body: `dossier of ${userId} in ${guildId}`,
      signals: {},
      messageCount: 3,
      lastSeenAt: null,
    }),
    context: async () => ({ strategy: 'live', sections: [], text: '', tokens: 0 }),
  };
  const proposed: ProposalRequest[] = [];
  const runner = new SkillRunner(
    { discord, memory },
    {
      request: async (p: ProposalRequest) => (
        proposed.push(p),
        { proposalId: `p${proposed.length}` }
      ),
    },
  );
  return { runner, calls, proposed };
}

const call = (skillId: string, args: unknown, extra: Partial<SkillCall> = {}): SkillCall => ({
  guildId: '100000000000000001',
  channelId: '200000000000000001',
  skillId,
  tool: skillId,
  args,
  actor: { agentId: 'dit' },
  seed: 'seed-1',
  callId: 'call-1',
  now: Date.parse('2026-11-28T01:00:00Z'),
  ...extra,
});

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SkillError);
    return `${(e as SkillError).code} ${(e as Error).message}`;
  }
  throw new Error('expected a refusal');
};

describe('dice', () => {
  it('rolls a notation from its seed: the same seed, the same rolls', () => {
    const a = rollDice('2d6+1', 's');
    expect(a).toEqual(rollDice('2d6+1', 's'));
    if ('error' in a) throw new Error(a.error);
    expect(a.notation).toBe('2d6+1');
    expect(a.rolls).toHaveLength(2);
    expect(a.rolls.every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(a.total).toBe(a.rolls[0] + a.rolls[1] + 1);
    const faces = new Set(
      Array.from({ length: 200 }, (_, i) => (rollDice('d6', `s${i}`) as { total: number }).total),
    );
    expect([...faces].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads d20, several terms and minus; refuses what it cannot read', () => {
    const r = rollDice('d20 + 1d4 - 2', 'x') as { rolls: number[]; total: number };
    expect(r.rolls).toHaveLength(2);
    expect(r.total).toBe(r.rolls[0] + r.rolls[1] - 2);
    expect(rollDice('2d1', 'x')).toEqual({ error: 'dice have 2 to 1000 sides' });
    expect(rollDice('101d6', 'x')).toEqual({ error: 'at most 100 dice' });
    expect(rollDice('5', 'x')).toEqual({ error: 'roll at least one die (e.g. 2d6+1)' });
    expect(rollDice('2d6++', 'x')).toHaveProperty('error');
  });
});

describe('SkillRunner', () => {
  it('lists the bundle with cost classes: steward changes confirm, the rest direct', () => {
    const { runner } = ports();
    const listed = runner.list();
    expect(listed.map((s) => s.id)).toEqual(SKILL_BUNDLE.map((s) => s.id));
    expect(listed.filter((s) => s.costClass === 'confirm').map((s) => s.id)).toEqual([
      'create_channel',
      'archive_channel',
      'manage_roles',
      'propose_restructure',
    ]);
    expect(runner.openAiTools()).toHaveLength(17);
    expect(runner.openAiTools()[0]).toEqual({
      type: 'function',
      function: expect.objectContaining({ name: 'memory_search', parameters: expect.any(Object) }),
    });
  });

  it('runs direct skills at once in the call guild', async () => {
    const { runner, calls } = ports();
    const rolled = await runner.invoke(call('dice', { notation: '2d6+1' }));
    expect(rolled).toEqual({ status: 'done', result: rollDice('2d6+1', 'seed-1') });
    const polled = await runner.invoke(
      call('poll', { question: 'Pizza?', options: ['yes', 'no'] }),
    );
    expect(polled.status).toBe('done');
    expect(calls.find((c) => c.op === 'createPoll')?.r).toEqual({
      guildId: '100000000000000001',
      channelId: '200000000000000001',
      question: 'Pizza?',
      answers: ['yes', 'no'],
      durationHours: 24,
    });
    await runner.invoke(
      call('create_thread', { name: 'side talk', messageId: '300000000000000001' }),
    );
    await runner.invoke(call('pin_moment', { messageId: '300000000000000001' }));
    expect(calls.map((c) => c.op)).toEqual(['createPoll', 'createThread', 'pinMessage']);
    const who = await runner.invoke(call('recall_user', { name: 'Ada' }));
    expect(who).toEqual({
      status: 'done',
      result: expect.objectContaining({ userId: '700000000000000001' }),
    });
  });

  it('turns confirm skills into proposals and runs them only when approved', async () => {
    const { runner, calls, proposed } = ports();
    const args = { action: 'assign', roleName: 'regulars', userId: '700000000000000001' };
    const out = await runner.invoke(call('manage_roles', args, { reason: 'active member' }));
    expect(out).toEqual({ status: 'proposed', proposalId: 'p1' });
    expect(proposed[0]).toEqual(
      expect.objectContaining({ skillId: 'manage_roles', args, reason: 'active member' }),
    );
    expect(calls).toEqual([]);
    const result = await runner.executeApproved(call('manage_roles', args));
    expect(result).toEqual(expect.objectContaining({ roleId: '900000000000000004' }));
    expect(calls.map((c) => c.op)).toEqual(['createRole', 'assignRole']);
  });

  it('refuses bad arguments naming the field, and unknown skills as NOT_FOUND', async () => {
    const { runner } = ports();
    expect(await refusal(runner.invoke(call('nope', {})))).toBe('NOT_FOUND no skill nope');
    expect(await refusal(runner.invoke(call('dice', {})))).toBe(
      "BAD_REQUEST args.notation: must have required property 'notation'",
    );
    expect(await refusal(runner.invoke(call('dice', { notation: '2d6', guildId: '1' })))).toBe(
      'BAD_REQUEST args.guildId: is not an argument of this tool',
    );
    expect(
      await refusal(runner.invoke(call('poll', { question: 'q', options: ['only one'] }))),
    ).toMatch(/^BAD_REQUEST args\.options: must NOT have fewer than 2 items/);
    expect(
      await refusal(runner.invoke(call('manage_roles', { action: 'assign', roleName: 'r' }))),
    ).toMatch(/^BAD_REQUEST args\.userId/);
    expect(await refusal(runner.invoke(call('dice', { notation: '2d1' })))).toBe(
      'BAD_REQUEST args.notation: dice have 2 to 1000 sides',
    );
  });
});

describe('acting for a member', () => {
  const HERE = '200000000000000001';
  const MOD = '200000000000000002';
  const asker = { agentId: 'dit', userId: '700000000000000001' };
  const seeing = ['ViewChannel', 'SendMessages', 'SendPolls', 'CreatePublicThreads'];

  it('runs a Discord change at once only with the asker’s permission in the target', async () => {
    const { runner, calls, proposed } = ports({
      [HERE]: [...seeing, 'ManageMessages'],
      [MOD]: ['SendMessages'],
    });
    const pin = (args: Record<string, unknown>) =>
      runner.invoke(call('pin_moment', args, { actor: asker }));
    expect(await pin({ messageId: '300000000000000001' })).toMatchObject({ status: 'done' });
    // Named another channel the asker cannot see: refused in words, nothing done.
    const refused = await pin({ channelId: MOD, messageId: '300000000000000002' });
    expect(refused).toEqual({ status: 'refused', reason: expect.stringMatching(/can't see/) });
    expect(calls.filter((c) => c.op === 'pinMessage')).toHaveLength(1);
    expect(proposed).toHaveLength(0);
  });

  it('proposes what the asker sees but may not do, recording who asked', async () => {
    const { runner, calls, proposed } = ports({ [HERE]: seeing });
    const out = await runner.invoke(
      call('pin_moment', { messageId: '300000000000000001' }, { actor: asker }),
    );
    expect(out).toEqual({ status: 'proposed', proposalId: 'p1' });
    expect(proposed[0]).toMatchObject({ skillId: 'pin_moment', requestedBy: asker });
    expect(calls.some((c) => c.op === 'pinMessage')).toBe(false);
    // A poll and a thread need their own rights; the member holds them here.
    expect(
      await runner.invoke(call('poll', { question: 'q?', options: ['a', 'b'] }, { actor: asker })),
    ).toMatchObject({ status: 'done' });
    expect(
      await runner.invoke(call('create_thread', { name: 't' }, { actor: asker })),
    ).toMatchObject({ status: 'done' });
  });

  it('refuses a member who is not in the server; an agent alone follows the cost class', async () => {
    const { runner } = ports({});
    expect(
      await runner.invoke(call('poll', { question: 'q?', options: ['a', 'b'] }, { actor: asker })),
    ).toMatchObject({ status: 'refused' });
    expect(
      await runner.invoke(call('poll', { question: 'q?', options: ['a', 'b'] })),
    ).toMatchObject({ status: 'done' });
  });

  it('never hands out a privileged role, nor one at or above the bot’s', async () => {
    const role = (name: string, position: number, permissions: string[] = []) =>
      ({
        roleId: `5${position}0000000000000`,
        name,
        position,
        permissions,
        managed: false,
      }) as RoleInfo;
    const { runner, proposed, calls } = ports({ [HERE]: seeing }, [
      role('admin', 5, ['Administrator']),
      role('mods', 4, ['KickMembers', 'ViewChannel']),
      role('top', 9),
      role('regulars', 2, ['ViewChannel', 'SendMessages']),
    ]);
    for (const roleName of ['admin', 'mods', 'top']) {
      const out = await runner.invoke(
        call(
          'manage_roles',
          { action: 'assign', roleName, userId: '700000000000000001' },
          {
            actor: asker,
          },
        ),
      );
      expect(out).toMatchObject({ status: 'refused' });
    }
    expect(proposed).toHaveLength(0);
    const ok = await runner.invoke(
      call(
        'manage_roles',
        { action: 'assign', roleName: 'regulars', userId: '700000000000000001' },
        {
          actor: asker,
        },
      ),
    );
    expect(ok).toMatchObject({ status: 'proposed' });
    // Checked again when an approved call runs.
    expect(
      await refusal(
        runner.executeApproved(call('manage_roles', { action: 'create', roleName: 'admin' })),
      ),
    ).toMatch(/^FORBIDDEN .*Administrator/);
    expect(calls.some((c) => c.op === 'createRole')).toBe(false);
  });
});

describe('runToolLoop', () => {
  const answer = (toolCalls: LoopAnswer['toolCalls'], content = ''): LoopAnswer => ({
    content,
    toolCalls,
    model: 'm',
    costUsd: 0.01,
  });

  it('feeds tool results back until the model answers in text', async () => {
    const seen: unknown[][] = [];
    const script = [
      answer([{ id: 'c1', function: { name: 'dice', arguments: '{"notation":"d6"}' } }]),
      answer([], 'You rolled a 4.'),
    ];
    const out = await runToolLoop({
      messages: [{ role: 'user', content: 'roll d6' }],
      chat: async (messages) => (seen.push([...messages]), script.shift()!),
      execute: async () => '{"total":4}',
    });
    expect(out.answer.content).toBe('You rolled a 4.');
    expect(out.rounds).toBe(1);
    expect(seen[1].slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', function: { name: 'dice', arguments: '{"notation":"d6"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"total":4}' },
    ]);
  });

  it('stops after four rounds and asks for text only', async () => {
    const finals: boolean[] = [];
    const out = await runToolLoop({
      messages: [{ role: 'user', content: 'loop' }],
      chat: async (_m, final) => {
        finals.push(final);
        return answer([{ id: `c${finals.length}`, function: { name: 'dice', arguments: '{}' } }]);
      },
      execute: async () => 'error',
    });
    expect(out.rounds).toBe(4);
    expect(finals).toEqual([false, false, false, false, true]);
    expect(out.costUsd).toBeCloseTo(0.05);
  });

  it('runs the calls it owns and hands an answer with any other call back to the caller', async () => {
    const ran: string[] = [];
    const script = [
      answer([{ id: 'c1', function: { name: 'dice', arguments: '{}' } }]),
      answer([
        { id: 'c2', function: { name: 'pin_moment', arguments: '{}' } },
        { id: 'c3', function: { name: 'delegate_to_general', arguments: '{"task":"t"}' } },
      ]),
      answer([], 'never asked'),
    ];
    const out = await runToolLoop({
      messages: [{ role: 'user', content: 'mixed' }],
      chat: async () => script.shift()!,
      execute: async (c) => (ran.push(c.function.name), 'ok'),
      owns: (c) => !c.function.name.startsWith('delegate_to_'),
    });
    expect(ran).toEqual(['dice', 'pin_moment']);
    expect(out.rounds).toBe(2);
    expect(out.answer.toolCalls.map((c) => c.id)).toEqual(['c2', 'c3']);
    expect(script).toHaveLength(1);
  });
});

describe('journaled', () => {
  /** A Discord port that records its writes; channels get ids from a counter. */
  const recording = () => {
    const writes: string[] = [];
    let next = 100;
    const discord = {
      createChannel: async (r: { name: string; adoptExisting?: boolean }) => {
        writes.push(`createChannel ${r.name}${r.adoptExisting ? ' adopt' : ''}`);
        return { channelId: String(next++) };
      },
      setChannelPermissions: async () => void writes.push('permissions'),
      post: async (_g: string, _c: string, content: string) => void writes.push(`post ${content}`),
      botUserId: async () => '9',
    } as unknown as DiscordActions;
    return { discord, writes };
  };
  const memoryJournal = () => {
    const kv = new Map<string, unknown>();
    const journal: EffectJournal = {
      get: async (k) => (kv.has(k) ? { value: kv.get(k) } : undefined),
      put: async (k, v) => void kv.set(k, v),
    };
    return { kv, journal };
  };
  const archive = async (d: DiscordActions) => {
    const { channelId } = await d.createChannel({
      guildId: '1',
      name: 'canon',
      private: false,
      memberIds: [],
    });
    await d.setChannelPermissions({ guildId: '1', channelId, overwrites: [] });
    await d.post('1', channelId, 'first', 'p-0');
    await d.post('1', channelId, 'second', 'p-1');
    return channelId;
  };

  it('a call run again gets its finished writes back instead of repeating them', async () => {
    const { discord, writes } = recording();
    const { journal } = memoryJournal();
    const first = await archive(journaled(discord, journal, 'proposal-a'));
    const again = await archive(journaled(discord, journal, 'proposal-a'));
    expect(again).toBe(first);
    expect(writes).toEqual(['createChannel canon', 'permissions', 'post first', 'post second']);
    // Another call is another call.
    await archive(journaled(discord, journal, 'proposal-b'));
    expect(writes).toHaveLength(8);
  });

  it('a write seen started but not finished is done again, a channel adopted by its name', async () => {
    const { discord, writes } = recording();
    const { kv, journal } = memoryJournal();
    kv.set('proposal-c.0.createChannel', PENDING);
    await archive(journaled(discord, journal, 'proposal-c'));
    expect(writes[0]).toBe('createChannel canon adopt');
    expect(kv.get('proposal-c.0.createChannel')).toEqual({ channelId: '100' });
  });
});
