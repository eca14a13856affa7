import { Bits, privateChannelOverwrites } from './overwrites';

describe('privateChannelOverwrites', () => {
  it('hides the channel from @everyone and opens it to members, moderator and bot', () => {
    const o = privateChannelOverwrites({
      guildId: '1',
      memberIds: ['10', '11', '10'],
      moderatorId: '20',
      botId: '30',
    });
    expect(o.map((x) => [x.id, x.type])).toEqual([
      ['1', 0],
      ['30', 1],
      ['20', 1],
      ['10', 1],
      ['11', 1],
    ]);
    expect(o[0].deny & Bits.ViewChannel).toBe(Bits.ViewChannel);
    for (const x of o.slice(1)) {
      expect(x.allow & Bits.ViewChannel).toBe(Bits.ViewChannel);
      expect(x.allow & Bits.SendMessages).toBe(Bits.SendMessages);
    }
    expect(o[1].allow & Bits.ManageWebhooks).toBe(Bits.ManageWebhooks);
    expect(o[2].allow & Bits.ManageWebhooks).toBe(0n);
  });

  it('does not repeat the moderator when it is the bot', () => {
    const o = privateChannelOverwrites({
      guildId: '1',
      memberIds: [],
      moderatorId: '30',
      botId: '30',
    });
    expect(o.map((x) => x.id)).toEqual(['1', '30']);
  });

  it('opens the channel to the roles that manage the server', () => {
    const o = privateChannelOverwrites({
      guildId: '1',
      memberIds: [],
      moderatorId: '30',
      botId: '30',
      staffRoleIds: ['40', '1'],
    });
    expect(o.map((x) => [x.id, x.type])).toEqual([
      ['1', 0],
      ['30', 1],
      ['40', 0],
    ]);
    expect(o[2].allow & Bits.ViewChannel).toBe(Bits.ViewChannel);
  });
});
