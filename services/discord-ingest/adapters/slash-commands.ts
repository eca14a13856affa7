import { Injectable, Logger } from '@nestjs/common';
import {
  Events,
  MessageFlags,
  PermissionFlagsBits,
  type ChatInputCommandInteraction,
  type Client,
  type Guild,
  type Interaction,
} from 'discord.js';
import {
  Subjects,
  type ChannelView,
  type Reply,
  type RouterTasksCancelResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import {
  describeCancel,
  describeFailure,
  describeRouterFailure,
  describeShuffle,
  describeSkip,
  describeStatus,
  parseSlashCommand,
  SLASH_COMMANDS,
  type SlashAction,
} from '../domain/slash-commands';

const COORDINATOR_TIMEOUT_MS = 2500;

/**
 * Slash commands in: registers them in each guild and answers each interaction through the
 * coordinator's member doors (`Subjects.turn.slash`; `/dirigent cancel`: the router's).
 */
@Injectable()
export class SlashCommands {
  private readonly log = new Logger('slash-commands');

  constructor(private readonly messaging: Messaging) {}

  attach(client: Client): void {
    client.on(Events.InteractionCreate, (i) => void this.onInteraction(i));
    client.on(Events.GuildCreate, (g) => void this.register(g));
  }

  /** Bulk overwrite: idempotent, so it runs on every start. */
  async register(guild: Guild): Promise<void> {
    try {
      await guild.commands.set(SLASH_COMMANDS as never);
    } catch (e) {
      this.log.warn({ guildId: guild.id, err: String(e) }, 'could not register slash commands');
    }
  }

  private async onInteraction(i: Interaction): Promise<void> {
    if (!i.isChatInputCommand() || !i.inGuild()) return;
    try {
      await i.deferReply({ flags: MessageFlags.Ephemeral });
      const action = parseSlashCommand({
        name: i.commandName,
        subcommand: i.options.getSubcommand(false),
        options: {
          mode: i.options.getString('mode') ?? undefined,
          value: i.options.getString('value') ?? undefined,
        },
        canManageChannels: i.memberPermissions.has(PermissionFlagsBits.ManageChannels),
      });
      await i.editReply({ content: await this.run(i, action) });
    } catch (e) {
      this.log.error({ command: i.commandName, err: String(e) }, 'slash command failed');
    }
  }

  private async run(i: ChatInputCommandInteraction<'cached' | 'raw'>, a: SlashAction) {
    const slash = Subjects.turn.slash;
    // The coordinator checks the member's right again: this door trusts no one else's word.
    const member = {
      guildId: i.guildId,
      channelId: i.channelId,
      userId: i.user.id,
      canManageChannels: i.memberPermissions.has(PermissionFlagsBits.ManageChannels),
    };
    switch (a.kind) {
      case 'refuse':
        return a.message;
      case 'set-mode': {
        const r = await this.ask(slash.setMode, { ...member, mode: a.mode });
        return r.ok
          ? `This channel is now in ${a.mode} mode.`
          : describeFailure(`set the mode to ${a.mode}`, r.error);
      }
      case 'set-shuffle': {
        const r = await this.ask(slash.setShuffle, { ...member, shuffle: a.shuffle });
        return r.ok
          ? `Turn shuffling is now ${a.shuffle ? 'on' : 'off'}.`
          : describeFailure('change turn shuffling', r.error);
      }
      case 'show-shuffle': {
        const r = await this.ask<ChannelView>(slash.status, member);
        return r.ok
          ? `Turn shuffling: ${describeShuffle(r.data.shuffle)}`
          : describeFailure('read this channel', r.error);
      }
      case 'status': {
        const r = await this.ask<ChannelView>(slash.status, member);
        return r.ok ? describeStatus(r.data) : describeFailure('read this channel', r.error);
      }
      case 'skip': {
        const r = await this.ask<ChannelView>(slash.skip, member);
        return r.ok ? describeSkip(r.data) : describeFailure('skip the current speaker', r.error);
      }
      case 'cancel': {
        const r = await this.ask<RouterTasksCancelResult>(Subjects.router.tasksCancel, {
          guildId: i.guildId,
          channelId: i.channelId,
          requestedBy: i.user.id,
        });
        return r.ok ? describeCancel(r.data) : describeRouterFailure(r.error);
      }
      default: {
        const never: never = a;
        return `unhandled ${JSON.stringify(never)}`;
      }
    }
  }

  private ask<R = unknown>(subject: string, data: unknown): Promise<Reply<R>> {
    return this.messaging.request<R>(subject, data, COORDINATOR_TIMEOUT_MS);
  }
}
