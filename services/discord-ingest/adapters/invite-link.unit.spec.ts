import { PermissionsBitField } from 'discord.js';
import {
  botPermissions,
  CONDUCTOR_PERMISSIONS,
  SKILL_BUNDLE,
  STEWARD_PERMISSIONS,
  type Skill,
} from '@dirigent/skills';
import { applicationIdOf, inviteLink } from './invite-link';

/** What each of the skills' own permission words needs of Discord, at least. */
const NEEDS: Record<string, string> = {
  'discord:post': 'SendMessages',
  'discord:threads': 'CreatePublicThreads',
  'discord:pins': 'PinMessages',
  'discord:channels': 'ManageChannels',
  'discord:roles': 'ManageRoles',
};

describe('the invite link', () => {
  const link = new URL(inviteLink('123456789012345678', botPermissions()));
  const granted = new PermissionsBitField(BigInt(link.searchParams.get('permissions')!));

  it('asks for the bot and its slash commands', () => {
    expect(link.origin + link.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(link.searchParams.get('client_id')).toBe('123456789012345678');
    expect(link.searchParams.get('scope')).toBe('bot applications.commands');
  });

  it('asks for exactly the union of what the skills, the steward and the conductor declare', () => {
    const union = new Set([
      ...SKILL_BUNDLE.flatMap((s) => s.discordPermissions),
      ...STEWARD_PERMISSIONS,
      ...CONDUCTOR_PERMISSIONS,
    ]);
    expect(granted.toArray().sort()).toEqual([...union].sort());
    expect(granted.has('Administrator', false)).toBe(false);
    expect(granted.has('ManageGuild', false)).toBe(false);
  });

  it('covers what every skill says it touches in Discord', () => {
    for (const skill of SKILL_BUNDLE) {
      for (const p of skill.permissions.filter((x) => x in NEEDS)) {
        expect([skill.id, p, skill.discordPermissions]).toEqual([
          skill.id,
          p,
          expect.arrayContaining([NEEDS[p]]),
        ]);
      }
    }
  });

  it('refuses a skill that would ask for Administrator', () => {
    const greedy = { ...SKILL_BUNDLE[0], discordPermissions: ['Administrator'] } as Skill;
    expect(() => botPermissions([greedy])).toThrow(/Administrator/);
  });

  it("reads the application's id off a bot token, and nothing off another string", () => {
    const token = `${Buffer.from('123456789012345678').toString('base64')}.GhXk2a.c2lnbmF0dXJl`;
    expect(applicationIdOf(token)).toBe('123456789012345678');
    expect(applicationIdOf('playground-0123abcd')).toBeNull();
  });
});
