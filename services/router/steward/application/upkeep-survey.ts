import { Inject, Injectable } from '@nestjs/common';
import {
  MessageCreated,
  StewardEventTypes,
  subject,
  UpkeepSurveyDue,
  type MemoryEpoch,
} from '@dirigent/contracts';
import {
  all,
  declareJob,
  predicate,
  Reactor,
  timer,
  event,
  type DeclaredJob,
} from '@dirigent/reactor';
import {
  archiveCandidates,
  roleCandidates,
  topicChannels,
  type ArchiveCandidate,
  type RoleCandidate,
  type TopicChannelCandidate,
  type UpkeepChannel,
  type UpkeepThresholds,
} from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ROUTER_SERVICE } from '../../application/schedule-followup';
import { ModChannels } from './mod-channels';
import { StewardDiscord } from './ports';
import { UpkeepProposer, type UpkeepProposal } from './upkeep-proposer';

/** A guild's upkeep survey (`dirigent.timer.fired.router.upkeep-survey`). */
export const UPKEEP_SURVEY_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'upkeep-survey'),
  type: StewardEventTypes.upkeepSurveyDue,
});

/** What upkeep reads of memory: the guild's closed epochs (`Subjects.memory.epochsList`). */
export abstract class UpkeepMemory {
  /** Newest first; of one channel when `channelId` is given. */
  abstract epochs(guildId: string, channelId?: string): Promise<MemoryEpoch[]>;
}

interface Survey {
  topics: TopicChannelCandidate[];
  archives: ArchiveCandidate[];
  roles: RoleCandidate[];
}

/**
 * Upkeep that proposes, from memory's epochs, as reactor jobs on a durable timer (never a
 * clock grid): a member's message arms the guild's survey (`upkeep-survey:<g>:<period>`,
 * once per `DIRIGENT_UPKEEP_SURVEY_MS`), and when it fires
 * `steward-upkeep-topic-channel` proposes a channel for a topic the guild keeps coming back
 * to, `steward-upkeep-archive` archiving a channel that went quiet after a long life (its
 * summary from memory, posted in it when approved), `steward-upkeep-role` a role for a group
 * that keeps meeting around a topic. Through the normal flow and its pending limit; one
 * proposal per subject at a time, its id the subject's (`upkeep-topic-<g>-<slug>-<n>`), and a
 * declined one is not asked again for `DIRIGENT_UPKEEP_REASK_DAYS`.
 */
@Injectable()
export class UpkeepSurvey {
  constructor(
    private readonly memory: UpkeepMemory,
    private readonly discord: StewardDiscord,
    private readonly modChannels: ModChannels,
    private readonly proposer: UpkeepProposer,
    private readonly reactor: Reactor,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {}

  /** The upkeep survey's jobs (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    const surveyJob = (
      name: string,
      holds: string,
      has: (s: Survey) => boolean,
      run: (d: UpkeepSurveyDue, s: Survey) => Promise<void>,
    ) =>
      declareJob<UpkeepSurveyDue, Survey>({
        name,
        trigger: all<Survey>(timer(UPKEEP_SURVEY_DUE), predicate(holds, has)),
        parse: UpkeepSurveyDue.create,
        lane: (d) => `upkeep:${d.guildId}`,
        snapshot: (d) => this.survey(d.guildId),
        run: (d, { snapshot }) => run(d, snapshot),
      });
    return [
      declareJob<MessageCreated>({
        name: 'steward-upkeep-arm',
        trigger: event({ type: 'message.created' }),
        parse: MessageCreated.create,
        lane: (m) => `upkeep:${m.guildId}`,
        run: (m) => this.arm(m),
      }),
      surveyJob(
        'steward-upkeep-topic-channel',
        'topic-discussed-across-days',
        (s) => s.topics.length > 0,
        (d, s) => this.proposeTopicChannels(d.guildId, s.topics),
      ),
      surveyJob(
        'steward-upkeep-archive',
        'channel-idle-after-long-life',
        (s) => s.archives.length > 0,
        (d, s) => this.proposeArchives(d.guildId, s.archives),
      ),
      surveyJob(
        'steward-upkeep-role',
        'group-meeting-around-topic',
        (s) => s.roles.length > 0,
        (d, s) => this.proposeRoles(d.guildId, s.roles),
      ),
    ];
  }

  thresholds(): UpkeepThresholds {
    const c = this.config;
    return {
      topicDays: c.DIRIGENT_UPKEEP_TOPIC_DAYS,
      topicMembers: c.DIRIGENT_UPKEEP_TOPIC_MEMBERS,
      archiveIdleDays: c.DIRIGENT_UPKEEP_ARCHIVE_IDLE_DAYS,
      archiveMinMessages: c.DIRIGENT_UPKEEP_ARCHIVE_MIN_MESSAGES,
      roleMembers: c.DIRIGENT_UPKEEP_ROLE_MEMBERS,
      roleDays: c.DIRIGENT_UPKEEP_ROLE_DAYS,
    };
  }

  /** The survey of this period, due at its end (the same key and time whoever arms it). */
  private async arm(m: MessageCreated) {
    if (m.authorIsBot) return;
    const period = this.config.DIRIGENT_UPKEEP_SURVEY_MS;
    const n = Math.floor(this.clock.now() / period);
    await this.reactor.arm(
      UPKEEP_SURVEY_DUE,
      `upkeep-survey:${m.guildId}:${n}`,
      new Date((n + 1) * period),
      { guildId: m.guildId },
    );
  }

  private async survey(guildId: string): Promise<Survey> {
    const channels: UpkeepChannel[] = (await this.discord.channels(guildId)) ?? [];
    const epochs = await this.memory.epochs(guildId);
    const t = this.thresholds();
    const mod = this.config.DIRIGENT_MOD_CHANNEL_NAME;
    // Each channel's own epochs: the guild's newest may leave out a channel long quiet.
    const perChannel = await Promise.all(
      channels.filter((c) => c.name !== mod).map((c) => this.memory.epochs(guildId, c.channelId)),
    );
    return {
      topics: topicChannels(epochs, channels, t),
      archives: archiveCandidates(
        perChannel.flat(),
        channels,
        this.clock.now(),
        t,
        (c) => c.name === mod,
      ),
      roles: roleCandidates(epochs, t),
    };
  }

  private propose(guildId: string, base: string, what: string, p: UpkeepProposal) {
    return this.proposer.propose(guildId, base, what, p);
  }

  /** Where an upkeep proposal is said to come from: the mod channel (it concerns the guild). */
  private where(guildId: string) {
    return this.modChannels.ensure(guildId);
  }

  private async proposeTopicChannels(guildId: string, topics: TopicChannelCandidate[]) {
    const channelId = await this.where(guildId);
    for (const c of topics) {
      const more = await this.propose(
        guildId,
        `upkeep-topic-${guildId}-${c.name}`,
        'topic channel',
        {
          channelId,
          skillId: 'create_channel',
          tool: 'create_channel',
          args: { name: c.name, topic: c.topic },
          reason: `"${c.topic}" came up on ${c.days} days among ${c.members} members, without a channel of its own.`,
        },
      );
      if (!more) return;
    }
  }

  private async proposeArchives(guildId: string, archives: ArchiveCandidate[]) {
    for (const c of archives) {
      const summaries = (await this.memory.epochs(guildId, c.channelId))
        .map((e) => e.summary)
        .filter(Boolean)
        .slice(0, 5)
        .reverse();
      const summary = [
        `Archive #${c.name}: quiet for ${c.idleDays} days after ${c.messages} messages.`,
        ...summaries,
      ]
        .join(' ')
        .slice(0, 1000);
      const more = await this.propose(guildId, `upkeep-archive-${c.channelId}`, 'archive', {
        channelId: c.channelId,
        skillId: 'propose_restructure',
        tool: 'propose_restructure',
        args: { summary, steps: [`archive #${c.name}`] },
        reason: `#${c.name} has been quiet for ${c.idleDays} days after ${c.messages} messages; memory keeps its epochs and highlights.`,
      });
      if (!more) return;
    }
  }

  private async proposeRoles(guildId: string, roles: RoleCandidate[]) {
    const channelId = await this.where(guildId);
    for (const c of roles) {
      const more = await this.propose(guildId, `upkeep-role-${guildId}-${c.name}`, 'role', {
        channelId,
        skillId: 'manage_roles',
        tool: 'manage_roles',
        args: { action: 'create', roleName: c.name },
        reason: `${c.memberIds.length} members have kept meeting around "${c.topic}" for ${c.days} days.`,
      });
      if (!more) return;
    }
  }
}
