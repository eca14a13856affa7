import {
  describeCancel,
  describeFailure,
  describeRouterFailure,
  describeSkip,
  describeStatus,
  parseSlashCommand,
  SLASH_COMMANDS,
} from './slash-commands';

const input = (
  name: string,
  subcommand: string | null,
  options = {},
  canManageChannels = true,
) => ({
  name,
  subcommand,
  options,
  canManageChannels,
});

describe('slash commands', () => {
  it("defines /set-channel-mode and /dirigent with four subcommands (cancel: Molt's tasks)", () => {
    expect(SLASH_COMMANDS.map((c) => c.name)).toEqual(['set-channel-mode', 'dirigent']);
    expect(SLASH_COMMANDS[1].options.map((o) => o.name)).toEqual([
      'turn-shuffling',
      'status',
      'skip',
      'cancel',
    ]);
  });

  it('cancels for managers only, and says what was cancelled or that nothing ran', () => {
    expect(parseSlashCommand(input('dirigent', 'cancel'))).toEqual({ kind: 'cancel' });
    expect(parseSlashCommand(input('dirigent', 'cancel', {}, false))).toMatchObject({
      kind: 'refuse',
      message: expect.stringMatching(/Manage Channels/),
    });
    expect(describeCancel({ cancelled: [] })).toBe(
      'Nothing to cancel: no task is running in this channel.',
    );
    expect(
      describeCancel({ cancelled: [{ messageId: '42', agentId: 'molt', tasks: ['coding'] }] }),
    ).toBe('Cancelled one run:\n- molt: the coding task asked for in message 42');
    expect(describeRouterFailure({ code: 'TIMEOUT', message: 'x' })).toMatch(
      /nothing was cancelled/,
    );
  });

  it('skips for managers only, and says who speaks now', () => {
    expect(parseSlashCommand(input('dirigent', 'skip'))).toEqual({ kind: 'skip' });
    expect(parseSlashCommand(input('dirigent', 'skip', {}, false))).toMatchObject({
      kind: 'refuse',
      message: expect.stringMatching(/Manage Channels/),
    });
    const view = {
      mode: 'chat' as const,
      tmState: 'normal' as const,
      currentSpeaker: '123',
      speakers: ['123'],
      dormant: false,
      multiMessage: false,
      shuffle: null,
    };
    expect(describeSkip(view)).toBe('Skipped. Current speaker: <@123>');
    expect(describeSkip({ ...view, currentSpeaker: null })).toBe(
      'Skipped. Nobody holds the turn now.',
    );
  });

  it('sets the settable modes for managers', () => {
    for (const mode of ['none', 'chat', 'report']) {
      expect(parseSlashCommand(input('set-channel-mode', null, { mode }))).toEqual({
        kind: 'set-mode',
        mode,
      });
    }
  });

  it('refuses work and discussion with a clear message, even for managers', () => {
    for (const mode of ['work', 'discussion']) {
      const a = parseSlashCommand(input('set-channel-mode', null, { mode }));
      expect(a.kind).toBe('refuse');
      expect(a.kind === 'refuse' && a.message).toMatch(new RegExp(`${mode} channels are created`));
    }
  });

  it('refuses changes from members without Manage Channels, but shows them status', () => {
    const noManage = (name: string, sub: string | null, options = {}) =>
      parseSlashCommand(input(name, sub, options, false));
    expect(noManage('set-channel-mode', null, { mode: 'chat' })).toMatchObject({
      kind: 'refuse',
      message: expect.stringMatching(/Manage Channels/),
    });
    expect(noManage('dirigent', 'turn-shuffling', { value: 'on' }).kind).toBe('refuse');
    expect(noManage('dirigent', 'turn-shuffling')).toEqual({ kind: 'show-shuffle' });
    expect(noManage('dirigent', 'status')).toEqual({ kind: 'status' });
  });

  it('parses turn-shuffling on/off', () => {
    expect(parseSlashCommand(input('dirigent', 'turn-shuffling', { value: 'on' }))).toEqual({
      kind: 'set-shuffle',
      shuffle: true,
    });
    expect(parseSlashCommand(input('dirigent', 'turn-shuffling', { value: 'off' }))).toEqual({
      kind: 'set-shuffle',
      shuffle: false,
    });
    expect(parseSlashCommand(input('dirigent', 'turn-shuffling', { value: 'x' })).kind).toBe(
      'refuse',
    );
    expect(parseSlashCommand(input('nope', null)).kind).toBe('refuse');
  });

  it('describes a channel and failures plainly', () => {
    const text = describeStatus({
      mode: 'chat',
      tmState: 'normal',
      currentSpeaker: '42',
      speakers: ['42', 'agent-b'],
      dormant: true,
      multiMessage: false,
      shuffle: null,
    });
    expect(text).toContain('Mode: chat');
    expect(text).toContain('State: normal (dormant)');
    expect(text).toContain('Speaker order: <@42> → agent-b');
    expect(text).toContain('Current speaker: <@42>');
    expect(describeFailure('set the mode', { code: 'MODE_LOCKED', message: 'locked' })).toBe(
      'Could not set the mode: locked (MODE_LOCKED)',
    );
    expect(describeFailure('x', { code: 'UNAVAILABLE', message: 'n' })).toMatch(
      /coordinator is unavailable/,
    );
  });
});
