import {
  classifyAccessChange,
  classifyDeletion,
  classifyMembership,
  classifyMessage,
  classifyReaction,
  classifyTyping,
  toPublication,
  type MessageFacts,
  audienceKeyOf,
  classifyChannelAudience,
} from './events';

const base: MessageFacts = {
  id: '300',
  guildId: '100',
  channelId: '200',
  authorId: '400',
  authorIsBot: false,
  content: 'hi',
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  webhookId: null,
  system: false,
  authorName: 'Ali',
  mentions: [],
  replyToMessageId: null,
  audience: { audience: 'public', audienceKey: 'public:0', parentChannelId: null },
};

describe('gateway event classification', () => {
  it('turns a human message into message.created with a Discord-derived id', () => {
    const r = classifyMessage(base);
    if (!r.ok) throw new Error(r.reason);
    expect(toPublication(r.event)).toEqual({
      subject: 'dirigent.discord.evt.100.200.message.created',
      envelopeId: 'discord:msg:300',
      type: 'message.created',
      data: {
        guildId: '100',
        channelId: '200',
        messageId: '300',
        authorId: '400',
        authorIsBot: false,
        content: 'hi',
        createdAt: '2026-01-02T03:04:05.000Z',
        authorName: 'Ali',
        mentions: [],
        audience: 'public',
        audienceKey: 'public:0',
      },
    });
  });

  it("carries the channel's audience, a thread's parent, and none when unknown", () => {
    const thread = classifyMessage({
      ...base,
      audience: { audience: 'private', audienceKey: 'private:1', parentChannelId: '150' },
    });
    expect(thread.ok && thread.event.data).toMatchObject({
      audience: 'private',
      audienceKey: 'private:1',
      parentChannelId: '150',
    });
    const unknown = classifyMessage({ ...base, audience: null });
    expect(unknown.ok && unknown.event.data).not.toHaveProperty('audience');
  });

  it('reports an audience change once per key, and every channel on connecting', () => {
    const pub = { audience: 'public' as const, parentChannelId: null };
    const open = { ...pub, audienceKey: audienceKeyOf('public', []) };
    const closedOverwrites = [{ id: '100', type: 0, allow: '0', deny: '1024' }];
    const closed = {
      audience: 'private' as const,
      audienceKey: audienceKeyOf('private', closedOverwrites),
      parentChannelId: null,
    };
    const at = new Date('2026-01-02T03:04:05.000Z');
    const c = { guildId: '100', channelId: '200', name: 'general', changedAt: at };
    expect(classifyChannelAudience({ ...c, before: open, after: open }).ok).toBe(false);
    const changed = classifyChannelAudience({ ...c, before: open, after: closed });
    if (!changed.ok) throw new Error(changed.reason);
    expect(toPublication(changed.event)).toEqual({
      subject: 'dirigent.discord.evt.100.200.channel.updated',
      envelopeId: `discord:channel-updated:200:${closed.audienceKey}:${at.getTime()}`,
      type: 'channel.updated',
      data: {
        guildId: '100',
        channelId: '200',
        name: 'general',
        audience: 'private',
        audienceKey: closed.audienceKey,
      },
    });
    const state = classifyChannelAudience({ ...c, before: null, after: closed, changedAt: null });
    expect(state.ok && toPublication(state.event).envelopeId).toBe(
      `discord:channel-updated:200:${closed.audienceKey}:state`,
    );
    // The key follows the overwrites, in any order, and not only the audience.
    const more = [...closedOverwrites, { id: '500', type: 1, allow: '1024', deny: '0' }];
    expect(audienceKeyOf('private', more)).toBe(audienceKeyOf('private', [...more].reverse()));
    expect(audienceKeyOf('private', more)).not.toBe(closed.audienceKey);
  });

  it('carries mentions once each and the message replied to', () => {
    const r = classifyMessage({ ...base, mentions: ['7', '8', '7'], replyToMessageId: '299' });
    expect(r.ok && r.event.data).toMatchObject({ mentions: ['7', '8'], replyToMessageId: '299' });
  });

  it('names unicode and custom emoji of reactions, and keeps re-adds apart', () => {
    const facts = {
      kind: 'reaction.added' as const,
      guildId: '100',
      channelId: '200',
      messageId: '300',
      userId: '400',
      emojiName: '👍',
      emojiId: null,
      receivedAt: new Date(1000),
    };
    const r = classifyReaction(facts);
    if (!r.ok) throw new Error(r.reason);
    expect(toPublication(r.event)).toEqual({
      subject: 'dirigent.discord.evt.100.200.reaction.added',
      envelopeId: 'discord:reaction.added:300:400:👍:1000',
      type: 'reaction.added',
      data: { guildId: '100', channelId: '200', messageId: '300', userId: '400', emoji: '👍' },
    });
    const custom = classifyReaction({
      ...facts,
      kind: 'reaction.removed',
      emojiName: 'party',
      emojiId: '9',
    });
    expect(custom.ok && custom.event.data).toMatchObject({ emoji: 'party:9' });
    const again = classifyReaction({ ...facts, receivedAt: new Date(2000) });
    expect(again.ok && toPublication(again.event).envelopeId).not.toBe(
      toPublication(r.event).envelopeId,
    );
    expect(classifyReaction({ ...facts, guildId: null }).ok).toBe(false);
    const bot = classifyReaction({ ...facts, userIsBot: true });
    expect(bot.ok && bot.event.data).toMatchObject({ userIsBot: true });
  });

  it('marks bots and webhooks', () => {
    const bot = classifyMessage({ ...base, authorIsBot: true });
    expect(bot.ok && bot.event.data).toMatchObject({ authorIsBot: true });
    const hook = classifyMessage({ ...base, webhookId: '500' });
    expect(hook.ok && hook.event.data).toMatchObject({ authorIsBot: true, webhookId: '500' });
  });

  it('ignores direct and system messages', () => {
    expect(classifyMessage({ ...base, guildId: null })).toEqual({
      ok: false,
      reason: 'direct message',
    });
    expect(classifyMessage({ ...base, system: true }).ok).toBe(false);
  });

  it('derives stable ids for deletions, typing and membership', () => {
    const del = classifyDeletion({ id: '300', guildId: '100', channelId: '200' });
    expect(del.ok && toPublication(del.event).envelopeId).toBe('discord:msg-deleted:300');
    const typing = classifyTyping({
      guildId: '100',
      channelId: '200',
      userId: '400',
      startedAt: new Date(5000),
    });
    expect(typing.ok && toPublication(typing.event)).toMatchObject({
      subject: 'dirigent.discord.evt.100.200.typing.started',
      envelopeId: 'discord:typing:200:400:5000',
    });
    expect(
      classifyTyping({ guildId: null, channelId: '1', userId: '2', startedAt: new Date() }).ok,
    ).toBe(false);
    const joined = classifyMembership({
      kind: 'member.joined',
      guildId: '100',
      userId: '400',
      isBot: true,
      joinedAt: new Date(7000),
      visibleChannelIds: ['200', '201'],
    }).map(toPublication);
    expect(joined.map((p) => [p.subject, p.envelopeId])).toEqual([
      ['dirigent.discord.evt.100.200.member.joined', 'discord:member.joined:100:200:400:7000'],
      ['dirigent.discord.evt.100.201.member.joined', 'discord:member.joined:100:201:400:7000'],
    ]);
    expect(joined[0].data).toEqual({
      guildId: '100',
      channelId: '200',
      userId: '400',
      isBot: true,
    });
  });
});

describe('classifyAccessChange', () => {
  it('publishes a join for who gained sight of the channel and a leave for who lost it', () => {
    const events = classifyAccessChange({
      guildId: 'g',
      channelId: 'c',
      members: [
        { userId: 'gained', isBot: true, before: false, after: true },
        { userId: 'lost', isBot: false, before: true, after: false },
        { userId: 'kept', isBot: false, before: true, after: true },
      ],
      changedAt: new Date(5000),
    });
    expect(events.map((e) => [e.kind, e.data.userId])).toEqual([
      ['member.joined', 'gained'],
      ['member.left', 'lost'],
    ]);
    // Each change has its own envelope id: regaining access later is not a duplicate.
    expect(toPublication(events[0]).envelopeId).toBe(
      'discord:member.joined:g:c:gained:access:5000',
    );
  });
});
