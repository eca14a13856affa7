import { DomainError, subject, type Envelope } from '@dirigent/contracts';
import type { JsMsg } from '@nats-io/jetstream';
import { JetStreamContext } from './contexts';
import type { DurableEventOptions } from './durable-consumer';
import { DiscordEventRoutes } from './discord-event-routes';
import { isPermanent } from './errors';

const ctxOf = (s: string) =>
  new JetStreamContext([
    { subject: s } as JsMsg,
    { id: 'e1' } as Envelope,
    {} as DurableEventOptions,
  ]);

const message = {
  guildId: '11',
  channelId: '22',
  messageId: '33',
  authorId: '44',
  authorIsBot: false,
  content: 'hi',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('DiscordEventRoutes', () => {
  it('hands the validated payload to the kind’s handlers, in the order listed', async () => {
    const seen: string[] = [];
    const routes = new DiscordEventRoutes({
      'message.created': [
        (m, ctx) => void seen.push(`core ${m.messageId} ${ctx.envelope.id}`),
        async (m) => void seen.push(`learning ${m.authorId}`),
      ],
      'typing.started': () => void seen.push('typing'),
    });
    await routes.dispatch(message, ctxOf(subject.discordEvent('11', '22', 'message.created')));
    expect(seen).toEqual(['core 33 e1', 'learning 44']);
  });

  it('hands a guild joined the subject’s guild id, and refuses one that is no snowflake', async () => {
    const joined: string[] = [];
    const routes = new DiscordEventRoutes({ 'guild.joined': (g) => void joined.push(g) });
    await routes.dispatch({}, ctxOf(subject.guildJoined('11')));
    expect(joined).toEqual(['11']);
    const bad = routes.dispatch({}, ctxOf('dirigent.discord.evt.x1.guild.joined'));
    await expect(bad).rejects.toThrow('bad guild id x1');
    await bad.catch((e) => expect(isPermanent(e)).toBe(true));
  });

  it('acknowledges a kind it does not list, telling `unrouted`', async () => {
    const unrouted: string[] = [];
    const routes = new DiscordEventRoutes({}, (s) => unrouted.push(s));
    const s = subject.discordEvent('11', '22', 'member.left');
    await routes.dispatch({ nonsense: true }, ctxOf(s));
    await routes.dispatch({}, ctxOf('dirigent.discord.evt.11.22.sticker.added'));
    expect(unrouted).toEqual([s, 'dirigent.discord.evt.11.22.sticker.added']);
  });

  it('refuses a subject without guild and channel, and a bad payload, as permanent', async () => {
    const routes = new DiscordEventRoutes({ 'message.created': () => undefined });
    const noChannel = routes.dispatch(message, ctxOf('dirigent.discord.evt.11'));
    await expect(noChannel).rejects.toThrow('unexpected subject');
    await noChannel.catch((e) => expect(isPermanent(e)).toBe(true));
    const badBody = routes.dispatch(
      { ...message, authorIsBot: 'no' },
      ctxOf(subject.discordEvent('11', '22', 'message.created')),
    );
    await expect(badBody).rejects.toBeInstanceOf(DomainError);
    await badBody.catch((e) => expect(isPermanent(e)).toBe(true));
  });
});
