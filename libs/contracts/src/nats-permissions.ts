/**
 * Who may say what on NATS: each service's own user and its publish/subscribe allow-lists
 * (docs/architecture.md, "NATS users"). The nats-server `users` list is rendered from here
 * and nowhere else (`deploy/k8s` holds the rendered text, a test keeps the two equal), so
 * adding a subject a service sends or serves means adding it here.
 *
 * Least privilege: a service may publish only the events and commands it emits, the
 * requests it makes and the replies to requests it received; subscribe only to what it
 * serves and to its own reply inboxes (`_INBOX_<service>.>`); and use JetStream only on the streams and buckets
 * it provisions, consumes or reads (no stream deletes or purges for anyone).
 */
import { Buckets, Streams, Subjects, type StreamName } from './subjects';

/** The services that connect to NATS, each as a user of the same name. */
export const NatsServices = [
  'discord-ingest',
  'turn-coordinator',
  'router',
  'memory',
  // Memory's `jobs` role (DIRIGENT_MEMORY_ROLE): its consumers and timers, no request doors.
  'memory-jobs',
  'llm-gateway',
] as const;
export type NatsService = (typeof NatsServices)[number];

/**
 * Where replies to a user's own requests, its JetStream deliveries and KV watches arrive:
 * an inbox prefix of its own, so no service can read the replies another one is sent
 * (`NatsClient` connects with it whenever it has a user).
 */
export const natsInboxPrefix = (user: string) => `_INBOX_${user}`;

type Bucket = (typeof Buckets)[keyof typeof Buckets];

export interface ServiceNatsGrant {
  /** Core subjects it publishes: events and commands into streams, and requests it makes. */
  publish: readonly string[];
  /** Subjects it serves (request/reply handlers and plain subscriptions). */
  subscribe: readonly string[];
  /** Streams it provisions, consumes or reads (JetStream API and acks on these only). */
  streams: readonly StreamName[];
  /** Key-value buckets it reads and writes. */
  buckets: readonly Bucket[];
}

/** Timer commands a service fires for itself (`dirigent.timer.fired.<service>.…`). */
const ownTimers = (service: NatsService) => `${Subjects.timer.firedPrefix}.${service}.>`;

const admin = Subjects.admin;
/** Every admin door (`dirigent.admin.*`). */
const ADMIN_ALL = 'dirigent.admin.>';
const discord = Subjects.discord;
/** The ingest's request doors (RPCs that change Discord, queries that read it); the router asks them all. */
const DISCORD_DOORS = [
  discord.rpcCreateChannel,
  discord.rpcCreateThread,
  discord.rpcPinMessage,
  discord.rpcCreateRole,
  discord.rpcAssignRole,
  discord.rpcSetChannelPermissions,
  discord.rpcEditChannel,
  discord.rpcCreatePoll,
  discord.queryMemberPermissions,
  discord.queryRoles,
  discord.queryChannelMembers,
  discord.queryGuilds,
  discord.querySelf,
];

/**
 * What memory's background work does (every memory replica but a `queries` one): memory's
 * events, model calls, memory's timers and dead letters; the streams it consumes.
 */
const MEMORY_JOBS: ServiceNatsGrant = {
  publish: [
    Subjects.memory.evtAll,
    Subjects.llm.chat,
    Subjects.llm.embed,
    ownTimers('memory'),
    Subjects.deadLetter.all,
  ],
  subscribe: [],
  streams: [
    Streams.discordEvents,
    Streams.timerFired,
    Streams.memoryEvents,
    Streams.routerEvents,
    Streams.deadLetter,
  ],
  buckets: [Buckets.timers],
};

/**
 * What each service does on NATS, read from its handlers, publishers and clients.
 * Only the control page's service (the turn-coordinator) and the router publish
 * `dirigent.admin.*`; the ingest publishes no admin door at all: its slash commands go through
 * the coordinator's member doors (`dirigent.turn.slash.*`), which check the member's own
 * right, and no one but the ingest writes Discord events, so a decision "from Discord" is
 * always the ingest's.
 */
export const ServiceNatsGrants: Record<NatsService, ServiceNatsGrant> = {
  'discord-ingest': {
    publish: [
      Subjects.discord.evtAll,
      // `/dirigent mode|shuffle|status|skip|cancel` and the agents' webhook names.
      Subjects.turn.slashAll,
      Subjects.turn.agentNames,
      Subjects.router.tasksCancel,
      Subjects.deadLetter.all,
    ],
    subscribe: DISCORD_DOORS,
    streams: [Streams.discordEvents, Streams.discordCommands, Streams.deadLetter],
    buckets: [Buckets.ingestShardLeases],
  },
  'turn-coordinator': {
    publish: [
      // The control page (libs/control-web) is served here: it is the admin door.
      ADMIN_ALL,
      Subjects.es.all,
      Subjects.turn.grantedAll,
      Subjects.turn.completeAll,
      discord.cmdAll,
      discord.rpcCreateChannel,
      discord.querySelf,
      discord.queryChannelMembers,
      discord.queryGuilds,
      Subjects.memory.context,
      Subjects.memory.epochsList,
      Subjects.memory.search,
      Subjects.memory.dossierGet,
      Subjects.router.decisionsList,
      Subjects.router.whatif,
      Subjects.steward.proposalsList,
      ownTimers('turn-coordinator'),
      Subjects.deadLetter.all,
      // A check-turn forwarded to the replica that holds the channel's partition.
      'dirigent.internal.turn-coordinator.*.check',
    ],
    subscribe: [
      Subjects.turn.check,
      `${Subjects.toolPrefix}.*`,
      Subjects.relay.checkAll,
      Subjects.relay.completeAll,
      Subjects.relay.toolAll,
      admin.identityUpsert,
      admin.identityRemove,
      admin.identityList,
      admin.identityRescan,
      admin.channelSetMode,
      admin.channelSetShuffle,
      admin.channelSetWakeMode,
      admin.channelAdvance,
      admin.channelGet,
      Subjects.turn.slashAll,
      Subjects.turn.agentNames,
      'dirigent.internal.turn-coordinator.*.check',
      // The control page's live view and the replicas' cache coherence.
      Subjects.es.all,
      Subjects.turn.grantedAll,
      Subjects.deadLetter.all,
    ],
    streams: [
      Streams.discordEvents,
      Streams.discordCommands,
      Streams.turnComplete,
      Streams.turnGranted,
      Streams.eventStore,
      Streams.timerFired,
      Streams.deadLetter,
    ],
    buckets: [Buckets.timers, Buckets.coordinatorLeases, Buckets.channelSnapshots],
  },
  router: {
    publish: [
      discord.cmdSendMessage,
      discord.cmdTyping,
      discord.cmdAddReaction,
      ...DISCORD_DOORS,
      admin.channelGet,
      admin.identityUpsert,
      Subjects.turn.check,
      Subjects.turn.completeAll,
      Subjects.memory.search,
      Subjects.memory.context,
      Subjects.memory.dossierGet,
      // The steward's upkeep reads the epochs; an archive keeps the channel's highlights.
      Subjects.memory.epochsList,
      Subjects.memory.highlightAdd,
      Subjects.llm.chat,
      Subjects.llm.budgetGet,
      Subjects.router.evtAll,
      Subjects.steward.evtAll,
      Subjects.es.all,
      ownTimers('router'),
      Subjects.deadLetter.all,
    ],
    subscribe: [
      Subjects.router.decide,
      Subjects.router.decisionsList,
      Subjects.router.replay,
      Subjects.router.whatif,
      Subjects.router.tasksCancel,
      Subjects.router.orchestrate,
      Subjects.router.skillsList,
      Subjects.router.skillInvoke,
      Subjects.router.remindersList,
      Subjects.router.reminderCancel,
      Subjects.steward.proposalsList,
      admin.stewardDecide,
      admin.personaGet,
      admin.personaUpsert,
      admin.personaVersions,
      admin.personaRollback,
      admin.personaList,
      admin.personaHistory,
      admin.learningGet,
      admin.learningReset,
      admin.learningHistory,
      admin.dispositionList,
      admin.dispositionUpsert,
      admin.dispositionRemove,
    ],
    streams: [
      Streams.discordEvents,
      Streams.discordCommands,
      Streams.turnComplete,
      Streams.turnGranted,
      Streams.timerFired,
      Streams.routerEvents,
      Streams.eventStore,
      Streams.stewardEvents,
      Streams.deadLetter,
    ],
    // The steward's ✅/❌ held for posts not recorded yet.
    buckets: [Buckets.timers, Buckets.skillEffects, Buckets.stewardHeldDecisions],
  },
  memory: {
    publish: [
      ...MEMORY_JOBS.publish,
      // A search forwarded to the replica that holds the guild's partition.
      'dirigent.internal.memory.*.search',
    ],
    subscribe: [
      Subjects.memory.search,
      Subjects.memory.context,
      Subjects.memory.dossierGet,
      Subjects.memory.epochsList,
      Subjects.memory.highlightAdd,
      Subjects.memory.forget,
      'dirigent.internal.memory.*.search',
    ],
    streams: MEMORY_JOBS.streams,
    buckets: [...MEMORY_JOBS.buckets, Buckets.memoryLeases],
  },
  // Memory's background work (its `jobs` role): it answers no request, holds no index (so
  // no leases) and forwards no search.
  'memory-jobs': MEMORY_JOBS,
  'llm-gateway': {
    publish: [
      Subjects.llm.usage,
      Subjects.deadLetter.all,
      // A streamed chat's chunks go to the caller's `streamSubject`, an inbox of its own.
      ...NatsServices.map((s) => `${natsInboxPrefix(s)}.>`),
    ],
    subscribe: [Subjects.llm.chat, Subjects.llm.embed, Subjects.llm.budgetGet],
    streams: [Streams.llmUsage, Streams.deadLetter],
    buckets: [],
  },
};

/** The JetStream API subjects that provisioning, consuming and reading one stream take. */
export function jetStreamRights(stream: string): string[] {
  const api = '$JS.API';
  return [
    `${api}.STREAM.INFO.${stream}`,
    `${api}.STREAM.CREATE.${stream}`,
    `${api}.STREAM.UPDATE.${stream}`,
    `${api}.STREAM.MSG.GET.${stream}`,
    `${api}.STREAM.MSG.DELETE.${stream}`,
    `${api}.DIRECT.GET.${stream}`,
    `${api}.DIRECT.GET.${stream}.>`,
    `${api}.CONSUMER.CREATE.${stream}`,
    `${api}.CONSUMER.CREATE.${stream}.>`,
    `${api}.CONSUMER.DURABLE.CREATE.${stream}.*`,
    `${api}.CONSUMER.INFO.${stream}.*`,
    `${api}.CONSUMER.DELETE.${stream}.*`,
    `${api}.CONSUMER.MSG.NEXT.${stream}.*`,
    `${api}.CONSUMER.NAMES.${stream}`,
    `${api}.CONSUMER.LIST.${stream}`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** Account-wide JetStream reads every client makes (account info, stream lookup by subject). */
const JETSTREAM_COMMON = ['$JS.API.INFO', '$JS.API.STREAM.NAMES', '$JS.API.STREAM.LIST'];

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Lets a service answer the requests it receives (one reply each) and nothing more. */
  allow_responses: true;
}

/** The allow-lists of one service's user, as nats-server's `permissions` takes them. */
export function natsPermissions(service: NatsService): NatsPermissions {
  const g = ServiceNatsGrants[service];
  const streams = [...g.streams, ...g.buckets.map((b) => `KV_${b}`)];
  const publish = [
    ...g.publish,
    ...g.buckets.map((b) => `$KV.${b}.>`),
    ...JETSTREAM_COMMON,
    ...streams.flatMap(jetStreamRights),
  ];
  const subscribe = [`${natsInboxPrefix(service)}.>`, ...g.subscribe];
  return {
    publish: { allow: [...new Set(publish)] },
    subscribe: { allow: [...new Set(subscribe)] },
    allow_responses: true,
  };
}

/** The server-side environment variable that holds a service user's password. */
export const natsPasswordVariable = (service: NatsService) =>
  `NATS_PASSWORD_${service.replace(/-/g, '_').toUpperCase()}`;

/** JSON strings are valid NATS config strings. */
const q = (s: string) => JSON.stringify(s);

/**
 * The `users` list of Dirigent's NATS account: one user per service with its allow-lists.
 * Passwords are references to the server's environment (`$NATS_PASSWORD_ROUTER`, …), so
 * the rendered text holds no secret; the nats-server process gets them from a Secret.
 *
 * @example
 * serviceUsersConfig(); // '# Rendered by …\nusers: [\n  {\n    user: "discord-ingest"\n    password: $NATS_PASSWORD_DISCORD_INGEST …'
 */
export function serviceUsersConfig(): string {
  const list = (xs: string[], indent: string) =>
    ['[', ...xs.map((x) => `${indent}  ${q(x)}`), `${indent}]`].join('\n');
  const lines = [
    '# Rendered by serviceUsersConfig() of libs/contracts/src/nats-permissions.ts: change it there.',
    'users: [',
  ];
  for (const service of NatsServices) {
    const p = natsPermissions(service);
    lines.push(
      '  {',
      `    user: ${q(service)}`,
      `    password: $${natsPasswordVariable(service)}`,
      '    permissions: {',
      `      publish: { allow: ${list(p.publish.allow, '      ')} }`,
      `      subscribe: { allow: ${list(p.subscribe.allow, '      ')} }`,
      '      allow_responses: true',
      '    }',
      '  }',
    );
  }
  lines.push(']', '');
  return lines.join('\n');
}
