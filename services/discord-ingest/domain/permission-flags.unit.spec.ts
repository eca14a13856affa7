import { PermissionFlagsBits } from 'discord.js';
import { PERMISSION_FLAGS } from '@dirigent/contracts';

describe('PERMISSION_FLAGS', () => {
  it('spells exactly the flag names of discord.js', () => {
    expect([...PERMISSION_FLAGS].sort()).toEqual(Object.keys(PermissionFlagsBits).sort());
  });
});
