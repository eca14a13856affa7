import { channelPermissions, EVERYONE_DEFAULT, Permission } from './permissions';
import { compareSnowflakes } from '@dirigent/contracts';
import { SnowflakeGenerator } from './snowflakes';
import { forIntents, Intents } from './gateway';

describe('channelPermissions', () => {
  const roles = new Map([
    ['g', EVERYONE_DEFAULT],
    ['mod', EVERYONE_DEFAULT | Permission.ManageChannels],
    ['admin', Permission.Administrator],
  ]);
  const base = { guildId: 'g', ownerId: 'owner', rolePermissions: roles, overwrites: [] };
  const hidden = [{ id: 'g', type: 0 as const, allow: '0', deny: String(Permission.ViewChannel) }];

  it('starts from @everyone and the member roles', () => {
    const p = channelPermissions({ ...base, userId: 'u', memberRoleIds: ['mod'] });
    expect(p & Permission.ManageChannels).toBe(Permission.ManageChannels);
    expect(
      channelPermissions({ ...base, userId: 'u', memberRoleIds: [] }) & Permission.ManageChannels,
    ).toBe(0n);
  });

  it('applies @everyone, role and member overwrites in order', () => {
    const userAllowed = [
      ...hidden,
      { id: 'u', type: 1 as const, allow: String(Permission.ViewChannel), deny: '0' },
    ];
    const view = (userId: string, memberRoleIds: string[], overwrites = userAllowed) =>
      (channelPermissions({ ...base, userId, memberRoleIds, overwrites }) &
        Permission.ViewChannel) !==
      0n;
    expect(view('u', [])).toBe(true);
    expect(view('other', [])).toBe(false);
    expect(view('other', ['admin'])).toBe(true);
    expect(view('owner', [])).toBe(true);
    const roleAllowed = [
      ...hidden,
      { id: 'mod', type: 0 as const, allow: String(Permission.ViewChannel), deny: '0' },
    ];
    expect(view('other', ['mod'], roleAllowed)).toBe(true);
  });
});

describe('SnowflakeGenerator', () => {
  it('grows strictly within one generator, even within one millisecond', () => {
    const ids = new SnowflakeGenerator();
    const list = Array.from({ length: 10_000 }, () => ids.next());
    for (let i = 1; i < list.length; i++) expect(compareSnowflakes(list[i - 1], list[i])).toBe(-1);
  });
});

describe('forIntents', () => {
  const msg = { author: { id: 'human' }, content: 'secret' };
  it('drops dispatches whose intent is missing and hides content without MessageContent', () => {
    expect(forIntents('TYPING_START', {}, Intents.Guilds, 'bot')).toBeNull();
    expect(forIntents('MESSAGE_CREATE', msg, Intents.GuildMessages, 'bot')).toMatchObject({
      content: '',
    });
    expect(
      forIntents('MESSAGE_CREATE', msg, Intents.GuildMessages | Intents.MessageContent, 'bot'),
    ).toMatchObject({ content: 'secret' });
    expect(
      forIntents('MESSAGE_CREATE', { ...msg, author: { id: 'bot' } }, Intents.GuildMessages, 'bot'),
    ).toMatchObject({
      content: 'secret',
    });
    expect(forIntents('INTERACTION_CREATE', {}, 0, 'bot')).toEqual({});
  });
});
