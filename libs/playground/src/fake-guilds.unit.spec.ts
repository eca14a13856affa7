import { FakeDiscord } from '@dirigent/discord-fake';
import { fakeGuilds, shownContent } from './fake-guilds';

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

describe('shownContent', () => {
  it('shows mentions as Discord does: @ and the display name, the role, the channel', () => {
    const discord = new FakeDiscord();
    const g = discord.createGuild({ name: 'g' });
    const ch = discord.createChannel(g.id, { name: 'garden' });
    const you = discord.createUser({ username: 'you', globalName: 'You (human)' });
    const ada = discord.createUser({ username: 'Ada', bot: true });
    discord.addMember(g.id, you.id);
    const role = discord.admin.createRole(g.id, { name: 'gardeners', permissions: 0n });
    const m = discord.postMessage({
      channelId: ch.id,
      authorId: ada.id,
      content: `<@${you.id}> reminder: water the beds, <@!${ada.id}> and <@&${role.id}> in <#${ch.id}>; <@123456789>`,
    });
    expect(shownContent(discord, m)).toBe(
      '@You (human) reminder: water the beds, @Ada and @gardeners in #garden; <@123456789>',
    );
  });
});
