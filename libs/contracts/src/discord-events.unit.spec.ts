import { isDiscordEventKind, parseDiscordEventSubject } from './discord-events';
import { subject } from './subjects';

describe('parseDiscordEventSubject', () => {
  it('reads guild, channel and kind from an event subject', () => {
    expect(parseDiscordEventSubject(subject.discordEvent('11', '22', 'message.created'))).toEqual({
      guildId: '11',
      channelId: '22',
      kind: 'message.created',
    });
  });

  it('reads a guild joined, which names no channel', () => {
    expect(parseDiscordEventSubject(subject.guildJoined('11'))).toEqual({
      kind: 'guild.joined',
      guildId: '11',
    });
  });

  it('keeps a kind it does not know, for its consumer to skip', () => {
    const s = parseDiscordEventSubject('dirigent.discord.evt.11.22.sticker.added');
    expect(s).toEqual({ guildId: '11', channelId: '22', kind: 'sticker.added' });
    expect(isDiscordEventKind(s!.kind)).toBe(false);
    expect(isDiscordEventKind('reaction.removed')).toBe(true);
  });

  it.each(['dirigent.discord.evt.11', 'dirigent.discord.evt', 'dirigent.turn.complete.22'])(
    'refuses %s (no guild and channel of the Discord stream)',
    (s) => expect(parseDiscordEventSubject(s)).toBeUndefined(),
  );
});
