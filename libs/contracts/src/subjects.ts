/**
 * Every wire name of Dirigent: NATS subjects, JetStream stream names and durable consumer
 * names. This is the only place they are spelled (docs/architecture.md).
 *
 * Changing a value is a breaking change of the public contract and of stored data: streams
 * and durable consumers with the old name keep their messages, so a rename needs a
 * migration (copy or re-provision) and an additive transition period.
 */
export const Subjects = {
  discord: {
    /** `dirigent.discord.evt.<guildId>.<channelId>.<kind>` */
    evtPrefix: 'dirigent.discord.evt',
    evtAll: 'dirigent.discord.evt.>',
    queryChannelMembers: 'dirigent.discord.query.channel-members',
    /** The moderator bot's own user id (`{ userId }`). */
    querySelf: 'dirigent.discord.query.self',
    /** The guilds the moderator bot is in, with their text channels (control page). */
    queryGuilds: 'dirigent.discord.query.guilds',
    rpcCreateChannel: 'dirigent.discord.rpc.create-channel',
    rpcCreateThread: 'dirigent.discord.rpc.create-thread',
    rpcPinMessage: 'dirigent.discord.rpc.pin-message',
    rpcCreateRole: 'dirigent.discord.rpc.create-role',
    rpcAssignRole: 'dirigent.discord.rpc.assign-role',
    rpcSetChannelPermissions: 'dirigent.discord.rpc.set-channel-permissions',
    /** Renames a channel or moves it under a category (made when missing). */
    rpcEditChannel: 'dirigent.discord.rpc.edit-channel',
    rpcCreatePoll: 'dirigent.discord.rpc.create-poll',
    /** Effective permission flag names of a member (`{ permissions }`). */
    queryMemberPermissions: 'dirigent.discord.query.member-permissions',
    /** The guild's roles with their positions and permission flag names (`{ roles }`). */
    queryRoles: 'dirigent.discord.query.roles',
    cmdSendMessage: 'dirigent.discord.cmd.send-message',
    cmdDeleteMessage: 'dirigent.discord.cmd.delete-message',
    cmdAddReaction: 'dirigent.discord.cmd.add-reaction',
    cmdTyping: 'dirigent.discord.cmd.typing',
    cmdAll: 'dirigent.discord.cmd.>',
  },
  turn: {
    check: 'dirigent.turn.check',
    /** `dirigent.turn.complete.<channelId>` */
    completePrefix: 'dirigent.turn.complete',
    completeAll: 'dirigent.turn.complete.*',
    /** `dirigent.turn.granted.<channelId>` */
    grantedPrefix: 'dirigent.turn.granted',
    grantedAll: 'dirigent.turn.granted.*',
    /**
     * `/dirigent …` as a member typed it: only the ingest publishes these, with the member's
     * permission in the channel as Discord reported it on the interaction.
     */
    slash: {
      setMode: 'dirigent.turn.slash.set-mode',
      setShuffle: 'dirigent.turn.slash.set-shuffle',
      status: 'dirigent.turn.slash.status',
      skip: 'dirigent.turn.slash.skip',
    },
    slashAll: 'dirigent.turn.slash.*',
    /** Registered agents' display names (no tokens, no instances): webhook names. */
    agentNames: 'dirigent.turn.agent-names',
  },
  admin: {
    identityUpsert: 'dirigent.admin.identity.upsert',
    identityRemove: 'dirigent.admin.identity.remove',
    identityList: 'dirigent.admin.identity.list',
    channelSetMode: 'dirigent.admin.channel.set-mode',
    channelSetShuffle: 'dirigent.admin.channel.set-shuffle',
    channelGet: 'dirigent.admin.channel.get',
    channelSetWakeMode: 'dirigent.admin.channel.set-wake-mode',
    /** Skips the current speaker (control page, `/dirigent skip`). */
    channelAdvance: 'dirigent.admin.channel.advance',
    /** Re-reads the identity import file and padded-cell's `ego.json`. */
    identityRescan: 'dirigent.admin.identity.rescan',
    dispositionList: 'dirigent.admin.disposition.list',
    dispositionUpsert: 'dirigent.admin.disposition.upsert',
    dispositionRemove: 'dirigent.admin.disposition.remove',
    /** Approve or reject a pending proposal as a member (who needs ManageGuild). */
    stewardDecide: 'dirigent.admin.steward.decide',
    personaGet: 'dirigent.admin.persona.get',
    personaUpsert: 'dirigent.admin.persona.upsert',
    personaVersions: 'dirigent.admin.persona.versions',
    personaRollback: 'dirigent.admin.persona.rollback',
    /** Every built-in agent's active persona (`{ personas }`, the control page's tab). */
    personaList: 'dirigent.admin.persona.list',
    /** Versions with their weights and the learning signals that moved them. */
    personaHistory: 'dirigent.admin.persona.history',
    /** A guild's learned adjustments of an agent (`LearningGetRequest` → `LearningGetResult`). */
    learningGet: 'dirigent.admin.learning.get',
    /** Drops a guild's learned adjustments of an agent (`LearningResetRequest`). */
    learningReset: 'dirigent.admin.learning.reset',
    /** A guild's engagement with an agent and its learned weights over time (`LearningHistoryRequest`). */
    learningHistory: 'dirigent.admin.learning.history',
  },
  /** `dirigent.tool.<name>` */
  toolPrefix: 'dirigent.tool',
  /**
   * What a relay instance's requests become on the master: its NATS account imports these
   * with `to:` the plain subjects, so `<instance>` is stamped by the server, never by the relay.
   */
  relay: {
    /** `dirigent.relay.<instance>.…` */
    prefix: 'dirigent.relay',
    checkAll: 'dirigent.relay.*.turn.check',
    completeAll: 'dirigent.relay.*.turn.complete.*',
    toolAll: 'dirigent.relay.*.tool.*',
  },
  llm: {
    chat: 'dirigent.llm.chat',
    embed: 'dirigent.llm.embed',
    usage: 'dirigent.llm.usage',
    /** A guild's daily budget envelope (`{ usdPerDay, spentUsd, remainingUsd, periodEnd }`). */
    budgetGet: 'dirigent.llm.budget.get',
  },
  router: {
    decide: 'dirigent.router.decide',
    decisionsList: 'dirigent.router.decisions.list',
    /** Recomputes a stored decision from its inputs and seed (`{ chosen, candidates, identical }`). */
    replay: 'dirigent.router.replay',
    /** A guild's last decisions replayed under candidate weights (`RouterWhatIfRequest`). */
    whatif: 'dirigent.router.whatif',
    /** Cancels a channel's running orchestrator tasks (`/dirigent cancel`). */
    tasksCancel: 'dirigent.router.tasks.cancel',
    /** Answer directly or delegate to the coding, research and general agents. */
    orchestrate: 'dirigent.router.orchestrate',
    /** The skill catalog (`{ skills }`). */
    skillsList: 'dirigent.router.skills.list',
    /** Runs one skill tool call in a guild (a `confirm` skill becomes a proposal). */
    skillInvoke: 'dirigent.router.skill.invoke',
    /** A guild's pending reminders (`remind` skill), one member's with `userId` (`{ reminders }`). */
    remindersList: 'dirigent.router.reminders.list',
    /** Cancels a pending reminder (`{ reminderId, status }`). */
    reminderCancel: 'dirigent.router.reminders.cancel',
    /** `dirigent.router.evt.<guildId>.<channelId>.<kind>` */
    evtPrefix: 'dirigent.router.evt',
    evtAll: 'dirigent.router.evt.>',
    /** Every channel's `decision` events (memory's moment extraction per finished exchange). */
    decisionAll: 'dirigent.router.evt.*.*.decision',
    /** A persona's new version (`PersonaChangedEvent`). */
    personaChanged: 'dirigent.router.evt.persona.changed',
    /** A learning signal moved a persona's disposition weight (`PersonaWeightsAdjustedEvent`). */
    personaWeightsAdjusted: 'dirigent.router.evt.persona.weights.adjusted',
  },
  steward: {
    /** `dirigent.steward.evt.<guildId>.proposal` */
    evtPrefix: 'dirigent.steward.evt',
    evtAll: 'dirigent.steward.evt.>',
    proposalsList: 'dirigent.steward.proposals.list',
  },
  memory: {
    search: 'dirigent.memory.search',
    context: 'dirigent.memory.context',
    dossierGet: 'dirigent.memory.dossier.get',
    epochsList: 'dirigent.memory.epochs.list',
    highlightAdd: 'dirigent.memory.highlight.add',
    forget: 'dirigent.memory.forget',
    /** `dirigent.memory.evt.<guildId>.<channelId>.<kind>` */
    evtPrefix: 'dirigent.memory.evt',
    evtAll: 'dirigent.memory.evt.>',
  },
  /** Internal: the event-sourced aggregates, `dirigent.es.<aggregate>.<id>`. */
  es: { prefix: 'dirigent.es', all: 'dirigent.es.>' },
  /** Internal: commands fired by durable timers, `dirigent.timer.fired.<service>.<name>`. */
  timer: { firedPrefix: 'dirigent.timer.fired', firedAll: 'dirigent.timer.fired.>' },
  /** Dead-letter records, `dirigent.deadletter.<stream>.<durable>`. */
  deadLetter: { prefix: 'dirigent.deadletter', all: 'dirigent.deadletter.>' },
} as const;

/**
 * The NATS header every message and request carries its W3C trace context in
 * (https://www.w3.org/TR/trace-context/): the services' spans, and the relay client's calls
 * made while it handles a grant, join the trace of what caused them.
 */
export const TRACEPARENT_HEADER = 'traceparent';

/** JetStream stream names. */
export const Streams = {
  discordEvents: 'DIRIGENT_DISCORD_EVT',
  discordCommands: 'DIRIGENT_DISCORD_CMD',
  turnComplete: 'DIRIGENT_TURN_COMPLETE',
  turnGranted: 'DIRIGENT_TURN_GRANTED',
  eventStore: 'DIRIGENT_ES',
  timerFired: 'DIRIGENT_TIMER_FIRED',
  llmUsage: 'DIRIGENT_LLM_USAGE',
  deadLetter: 'DIRIGENT_DEADLETTER',
  memoryEvents: 'DIRIGENT_MEMORY_EVT',
  routerEvents: 'DIRIGENT_ROUTER_EVT',
  stewardEvents: 'DIRIGENT_STEWARD_EVT',
} as const;

/** Durable consumer names (one per consuming service and purpose). */
export const Durables = {
  coordinatorDiscordEvents: 'turn-coordinator-discord-evt',
  coordinatorTurnComplete: 'turn-coordinator-turn-complete',
  coordinatorTimers: 'turn-coordinator-timers',
  coordinatorProjection: 'turn-coordinator-projection',
  coordinatorIdentityProjection: 'turn-coordinator-identity-projection',
  /** Executes the effects of committed channel events (grants, Discord commands, timers). */
  coordinatorReactor: 'turn-coordinator-reactor',
  ingestCommands: 'discord-ingest-commands',
  memoryDiscordEvents: 'memory-discord-evt',
  /** Memory's own timer commands (epoch close). */
  memoryTimers: 'memory-timers',
  /** Memory's redaction jobs (a deletion or forget reaching every layer). */
  memoryRedaction: 'memory-redaction',
  /** Memory's moment batches per channel. */
  memoryMoments: 'memory-moments',
  /** The router's decisions: memory extracts moments from each finished exchange. */
  memoryRouterDecisions: 'memory-router-decisions',
  routerTurnGranted: 'router-turn-granted',
  routerDiscordEvents: 'router-discord-evt',
  /** The router's own timer commands (self-follow-ups, speculative checks). */
  routerTimers: 'router-timers',
  /** The effects of committed proposal events: post, expiry timer, execution, steward events. */
  routerStewardEffects: 'router-steward-effects',
  /** The proposal read model's checkpoint (a projection runner, not a NATS durable). */
  routerStewardProposals: 'router-steward-proposals',
  /** The gateways' one shared consumer that writes the usage ledger. */
  gatewayLedger: 'llm-gateway-ledger',
} as const;

/** Key-value buckets. */
export const Buckets = {
  timers: 'dirigent_timers',
  /** Partition leases and membership of the coordinator replicas. */
  coordinatorLeases: 'dirigent_coordinator_leases',
  /** Guild partition leases and membership of the memory replicas. */
  memoryLeases: 'dirigent_memory_leases',
  /** Gateway shard leases and membership of the ingest replicas. */
  ingestShardLeases: 'dirigent_ingest_shard_leases',
  /** The coordinator's channel snapshots: one key per channel (a cache of the event store). */
  channelSnapshots: 'dirigent_channel_snapshots',
  /** The outcomes of skill calls' Discord writes by call id, so a re-run does not repeat them. */
  skillEffects: 'dirigent_skill_effects',
  /** ✅/❌ given on a mod channel post the router has not recorded yet, by message id. */
  stewardHeldDecisions: 'dirigent_steward_held_decisions',
} as const;

export type StreamName = (typeof Streams)[keyof typeof Streams];

export type DiscordEventKind =
  | 'message.created'
  | 'message.deleted'
  | 'typing.started'
  | 'member.joined'
  | 'member.left'
  | 'reaction.added'
  | 'reaction.removed'
  | 'channel.updated';

/** Builders for the subjects that carry ids; ids must be Discord snowflakes. */
export const subject = {
  discordEvent: (guildId: string, channelId: string, kind: DiscordEventKind) =>
    `${Subjects.discord.evtPrefix}.${guildId}.${channelId}.${kind}`,
  /** `dirigent.discord.evt.<g>.guild.joined`: the bot is in a guild (join, or ingest start). */
  guildJoined: (guildId: string) => `${Subjects.discord.evtPrefix}.${guildId}.guild.joined`,
  turnComplete: (channelId: string) => `${Subjects.turn.completePrefix}.${channelId}`,
  turnGranted: (channelId: string) => `${Subjects.turn.grantedPrefix}.${channelId}`,
  tool: (name: ToolName) => `${Subjects.toolPrefix}.${name}`,
  /** A relay's stamped subject for a plain one, e.g. `dirigent.relay.a.turn.check`. */
  relayed: (instance: string, plain: string) =>
    `${Subjects.relay.prefix}.${instance}.${plain.slice('dirigent.'.length)}`,
  aggregate: (aggregate: string, id: string) => `${Subjects.es.prefix}.${aggregate}.${id}`,
  timerFired: (service: string, name: string) => `${Subjects.timer.firedPrefix}.${service}.${name}`,
  memoryEvent: (guildId: string, channelId: string, kind: 'epoch.closed') =>
    `${Subjects.memory.evtPrefix}.${guildId}.${channelId}.${kind}`,
  routerEvent: (
    guildId: string,
    channelId: string,
    kind: 'decision' | 'followup' | 'burst-stopped' | 'held-back' | 'task',
  ) => `${Subjects.router.evtPrefix}.${guildId}.${channelId}.${kind}`,
  /** `dirigent.router.evt.<g>.learning.adjusted`: one step of a guild's learning. */
  learningAdjusted: (guildId: string) =>
    `${Subjects.router.evtPrefix}.${guildId}.learning.adjusted`,
  stewardProposal: (guildId: string) => `${Subjects.steward.evtPrefix}.${guildId}.proposal`,
  deadLetter: (stream: string, durable: string) =>
    `${Subjects.deadLetter.prefix}.${stream}.${durable}`,
};

export const ToolNames = [
  'create-chat-channel',
  'create-report-channel',
  'create-work-channel',
  'create-discussion-channel',
  'discussion-complete',
  'register',
] as const;
export type ToolName = (typeof ToolNames)[number];

/** Stream definitions provisioned at start by every service that needs them. */
export interface StreamSpec {
  name: StreamName;
  subjects: string[];
  retention: 'limits' | 'workqueue';
  /** De-duplication window for `Nats-Msg-Id`, in milliseconds. */
  duplicateWindowMs: number;
  maxAgeMs?: number;
}

const TWO_MINUTES = 120_000;
const DAY = 86_400_000;

export const StreamSpecs: Record<keyof typeof Streams, StreamSpec> = {
  discordEvents: {
    name: Streams.discordEvents,
    subjects: [Subjects.discord.evtAll],
    retention: 'limits',
    duplicateWindowMs: DAY,
    maxAgeMs: 30 * DAY,
  },
  discordCommands: {
    name: Streams.discordCommands,
    subjects: [Subjects.discord.cmdAll],
    retention: 'workqueue',
    duplicateWindowMs: TWO_MINUTES * 5,
  },
  turnComplete: {
    name: Streams.turnComplete,
    subjects: [Subjects.turn.completeAll],
    retention: 'limits',
    duplicateWindowMs: TWO_MINUTES * 5,
    maxAgeMs: 7 * DAY,
  },
  turnGranted: {
    name: Streams.turnGranted,
    subjects: [Subjects.turn.grantedAll],
    retention: 'limits',
    duplicateWindowMs: TWO_MINUTES * 5,
    maxAgeMs: 7 * DAY,
  },
  eventStore: {
    name: Streams.eventStore,
    subjects: [Subjects.es.all],
    retention: 'limits',
    duplicateWindowMs: TWO_MINUTES * 5,
  },
  timerFired: {
    name: Streams.timerFired,
    subjects: [Subjects.timer.firedAll],
    retention: 'limits',
    duplicateWindowMs: DAY,
    maxAgeMs: 7 * DAY,
  },
  llmUsage: {
    name: Streams.llmUsage,
    subjects: [Subjects.llm.usage],
    retention: 'limits',
    duplicateWindowMs: TWO_MINUTES,
    maxAgeMs: 30 * DAY,
  },
  memoryEvents: {
    name: Streams.memoryEvents,
    subjects: [Subjects.memory.evtAll],
    retention: 'limits',
    duplicateWindowMs: DAY,
    maxAgeMs: 30 * DAY,
  },
  routerEvents: {
    name: Streams.routerEvents,
    subjects: [Subjects.router.evtAll],
    retention: 'limits',
    duplicateWindowMs: DAY,
    maxAgeMs: 30 * DAY,
  },
  stewardEvents: {
    name: Streams.stewardEvents,
    subjects: [Subjects.steward.evtAll],
    retention: 'limits',
    duplicateWindowMs: DAY,
    maxAgeMs: 30 * DAY,
  },
  deadLetter: {
    name: Streams.deadLetter,
    subjects: [Subjects.deadLetter.all],
    retention: 'limits',
    duplicateWindowMs: TWO_MINUTES,
    maxAgeMs: 30 * DAY,
  },
};
