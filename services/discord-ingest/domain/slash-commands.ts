import {
  LOCKED_MODES,
  SETTABLE_MODES,
  type ChannelView,
  type ReplyError,
  type RouterTasksCancelResult,
  type SettableMode,
} from '@dirigent/contracts';

const STRING = 3;
const SUBCOMMAND = 1;
const GUILD_ONLY = [0];

/** The guild commands, as the bulk-overwrite body of Discord's API. */
export const SLASH_COMMANDS = [
  {
    name: 'set-channel-mode',
    description: 'Set how Dirigent runs this channel',
    type: 1,
    contexts: GUILD_ONLY,
    options: [
      {
        type: STRING,
        name: 'mode',
        description: 'none, chat or report (work and discussion channels come from agent tools)',
        required: true,
        choices: [...SETTABLE_MODES, ...LOCKED_MODES].map((m) => ({ name: m, value: m })),
      },
    ],
  },
  {
    name: 'dirigent',
    description: 'Dirigent in this channel',
    type: 1,
    contexts: GUILD_ONLY,
    options: [
      {
        type: SUBCOMMAND,
        name: 'turn-shuffling',
        description: 'Show or set whether the speaker order is shuffled each cycle',
        options: [
          {
            type: STRING,
            name: 'value',
            description: 'on or off; leave out to see the current value',
            required: false,
            choices: [
              { name: 'on', value: 'on' },
              { name: 'off', value: 'off' },
            ],
          },
        ],
      },
      {
        type: SUBCOMMAND,
        name: 'status',
        description: "This channel's mode, state, speaker order and current speaker",
      },
      {
        type: SUBCOMMAND,
        name: 'skip',
        description: 'Skip the current speaker and give the turn to the next one',
      },
      {
        type: SUBCOMMAND,
        name: 'cancel',
        description: "Cancel the orchestrator's running tasks in this channel",
      },
    ],
  },
];

export interface SlashInput {
  name: string;
  subcommand: string | null;
  options: Record<string, string | undefined>;
  canManageChannels: boolean;
}

export type SlashAction =
  | { kind: 'set-mode'; mode: SettableMode }
  | { kind: 'set-shuffle'; shuffle: boolean }
  | { kind: 'show-shuffle' }
  | { kind: 'status' }
  | { kind: 'skip' }
  | { kind: 'cancel' }
  | { kind: 'refuse'; message: string };

const NEEDS_MANAGE =
  'Only members with the Manage Channels permission can change how Dirigent runs this channel.';

/** Maps a slash command to what to do, refusing what is not allowed. */
export function parseSlashCommand(input: SlashInput): SlashAction {
  if (input.name === 'set-channel-mode') {
    const mode = input.options.mode ?? '';
    if ((LOCKED_MODES as readonly string[]).includes(mode)) {
      return {
        kind: 'refuse',
        message: `A channel cannot be switched to ${mode} mode by command: ${mode} channels are created by the agents' tools. Use none, chat or report.`,
      };
    }
    if (!(SETTABLE_MODES as readonly string[]).includes(mode)) {
      return { kind: 'refuse', message: `Unknown mode "${mode}". Use none, chat or report.` };
    }
    if (!input.canManageChannels) return { kind: 'refuse', message: NEEDS_MANAGE };
    return { kind: 'set-mode', mode: mode as SettableMode };
  }
  if (input.name === 'dirigent') {
    if (input.subcommand === 'status') return { kind: 'status' };
    if (input.subcommand === 'skip') {
      return input.canManageChannels ? { kind: 'skip' } : { kind: 'refuse', message: NEEDS_MANAGE };
    }
    if (input.subcommand === 'cancel') {
      return input.canManageChannels
        ? { kind: 'cancel' }
        : { kind: 'refuse', message: NEEDS_MANAGE };
    }
    if (input.subcommand === 'turn-shuffling') {
      const value = input.options.value;
      if (value === undefined) return { kind: 'show-shuffle' };
      if (value !== 'on' && value !== 'off') {
        return { kind: 'refuse', message: `Unknown value "${value}". Use on or off.` };
      }
      if (!input.canManageChannels) return { kind: 'refuse', message: NEEDS_MANAGE };
      return { kind: 'set-shuffle', shuffle: value === 'on' };
    }
    return { kind: 'refuse', message: `Unknown subcommand "${input.subcommand ?? ''}".` };
  }
  return { kind: 'refuse', message: `Unknown command /${input.name}.` };
}

export function describeShuffle(shuffle: boolean | null): string {
  if (shuffle === null) return 'automatic (decided by the number of agents)';
  return shuffle ? 'on' : 'off';
}

const mention = (id: string) => (/^\d+$/.test(id) ? `<@${id}>` : id);

/** The `/dirigent status` answer. */
export function describeStatus(v: ChannelView): string {
  const lines = [
    `Mode: ${v.mode}`,
    `State: ${v.tmState}${v.dormant ? ' (dormant)' : ''}`,
    `Speaker order: ${v.speakers.length ? v.speakers.map(mention).join(' → ') : '(none)'}`,
    `Current speaker: ${v.currentSpeaker ? mention(v.currentSpeaker) : '(none)'}`,
    `Turn shuffling: ${describeShuffle(v.shuffle)}`,
  ];
  if (v.multiMessage) lines.push('Multi-message mode: on');
  if (v.discussion) {
    lines.push(`Discussion: ${v.discussion.archived ? 'archived' : 'running'}`);
  }
  return lines.join('\n');
}

/** The `/dirigent skip` answer, from the channel after the skip. */
export function describeSkip(v: ChannelView): string {
  return v.currentSpeaker
    ? `Skipped. Current speaker: ${mention(v.currentSpeaker)}`
    : 'Skipped. Nobody holds the turn now.';
}

/** The `/dirigent cancel` answer: what was stopped, or that nothing ran. */
export function describeCancel(r: RouterTasksCancelResult): string {
  if (!r.cancelled.length) return 'Nothing to cancel: no task is running in this channel.';
  const lines = r.cancelled.map((c) => {
    const what = c.tasks.length
      ? `${c.tasks.join(', ')} task${c.tasks.length > 1 ? 's' : ''}`
      : 'answer';
    return `- ${c.agentId}: the ${what} asked for in message ${c.messageId}`;
  });
  return [
    `Cancelled ${r.cancelled.length === 1 ? 'one run' : `${r.cancelled.length} runs`}:`,
    ...lines,
  ].join('\n');
}

/** How a router failure is shown: plainly, and that nothing was stopped. */
export function describeRouterFailure(error: ReplyError): string {
  if (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT') {
    return 'The router is unavailable right now, so nothing was cancelled; try again in a moment.';
  }
  return `Could not cancel: ${error.message} (${error.code})`;
}

/** How a coordinator failure is shown to the member: plainly, with nothing hidden. */
export function describeFailure(action: string, error: ReplyError): string {
  if (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT') {
    return `The turn coordinator is unavailable right now, so I could not ${action}. Nothing was changed; try again in a moment.`;
  }
  return `Could not ${action}: ${error.message} (${error.code})`;
}
