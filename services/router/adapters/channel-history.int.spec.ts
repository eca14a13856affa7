import { subject } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging } from '@dirigent/testing';
import { JetStreamChannelHistory } from './channel-history';

/**
 * The start's one read of every channel's talk (`RecentTalk`) against real JetStream: each
 * channel's messages under its own id, deleted ones left out, other kinds of event not
 * read; nothing at all when the window holds more than asked.
 */
describe('channel history: every channel in one read', () => {
  let messaging: Messaging;
  let history: JetStreamChannelHistory;
  const guild = snowflake();
  const [one, two] = [snowflake(), snowflake()];

  const say = (channelId: string, messageId: string, content: string, at: number) =>
    messaging.publishEvent(
      subject.discordEvent(guild, channelId, 'message.created'),
      'message.created',
      {
        guildId: guild,
        channelId,
        messageId,
        authorId: '42',
        authorIsBot: false,
        content,
        createdAt: new Date(at).toISOString(),
      },
    );

  beforeAll(async () => {
    messaging = await testMessaging('router-channel-history-int');
    history = new JetStreamChannelHistory(messaging);
  });
  afterAll(async () => {
    await closeMessaging(messaging);
  });

  it('reads each channel’s messages since a moment, by channel, in one go', async () => {
    const from = Date.now();
    const now = from + 1000;
    await say(one, '1', 'the picnic is at noon', now);
    await say(two, '2', 'who brings lemonade?', now + 1);
    await say(one, '3', 'a message taken back', now + 2);
    await messaging.publishEvent(
      subject.discordEvent(guild, one, 'message.deleted'),
      'message.deleted',
      { guildId: guild, channelId: one, messageId: '3' },
    );
    await messaging.publishEvent(
      subject.discordEvent(guild, two, 'typing.started'),
      'typing.started',
      { guildId: guild, channelId: two, userId: '42', at: new Date(now).toISOString() },
    );

    const all = await history.recentMessages(from, 100);
    expect(all).toBeDefined();
    expect(all!.get(one)!.map((m) => [m.messageId, m.content])).toEqual([
      ['1', 'the picnic is at noon'],
    ]);
    expect(all!.get(two)!.map((m) => m.messageId)).toEqual(['2']);
    // The same as each channel's own read.
    expect(await history.messagesSince(guild, one, from)).toEqual(all!.get(one));
  });

  it('reads nothing when the window holds more messages than asked', async () => {
    const from = Date.now() - 60_000;
    await say(one, '4', 'one more', Date.now());
    expect(await history.recentMessages(from, 2)).toBeUndefined();
  });
});
