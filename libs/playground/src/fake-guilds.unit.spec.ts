import { FakeDiscord } from '@dirigent/discord-fake';
import { fakeGuilds } from './fake-guilds';

describe('fakeGuilds', () => {
  it('lists the text channels of each guild and marks the ones hidden from @everyone', () => {
    const discord = new FakeDiscord();
    const g = discord.createGuild({ name: 'g' });
    const open = discord.createChannel(g.id, { name: 'open' });
    const hidden = discord.createChannel(g.id, {
      name: 'hidden',
      overwrites: [{ id: g.id, type: 0, allow: '0', deny: String(1 << 10) }],
    });
    discord.createChannel(g.id, { name: 'category', type: 4 });
    const other = discord.createGuild({ name: 'other' });
    expect(fakeGuilds(discord, g.id)).toEqual({
      guilds: [
        {
          guildId: g.id,
          name: 'g',
          channels: [
            { channelId: open.id, name: 'open', private: false },
            { channelId: hidden.id, name: 'hidden', private: true },
          ],
        },
      ],
    });
    expect(fakeGuilds(discord).guilds.map((x) => x.guildId)).toEqual([g.id, other.id]);
  });
});
