import type { ProposalStatus, ProposalView } from '@dirigent/contracts';

/**
 * The steward's two aggregates, as pure deciders (CONTRIBUTING.md § Habits): a proposal
 * (`dirigent.es.proposal.<id>`) and a guild's mod channel claim
 * (`dirigent.es.mod-channel.<guildId>`). Time and ids arrive in the commands.
 */

export const APPROVE_EMOJI = '✅';
export const REJECT_EMOJI = '❌';

// ---------- Proposal ----------

/** What a proposal is made of when it is requested (its view's fixed part). */
export type ProposalRequestedData = Pick<
  ProposalView,
  | 'proposalId'
  | 'guildId'
  | 'channelId'
  | 'skillId'
  | 'tool'
  | 'args'
  | 'reason'
  | 'requestedBy'
  | 'createdAt'
  | 'expiresAt'
>;

export type ProposalEvent =
  | { type: 'ProposalRequested'; data: ProposalRequestedData }
  | { type: 'ProposalPosted'; data: { modChannelId: string; messageId: string; at: string } }
  | { type: 'ProposalApproved'; data: { by: string; at: string } }
  | { type: 'ProposalRejected'; data: { by: string; at: string } }
  | { type: 'ProposalExpired'; data: { at: string } }
  | { type: 'ProposalExecuted'; data: { result: unknown; at: string } }
  | { type: 'ProposalFailed'; data: { error: string; at: string } };

export type ProposalCommand =
  | { type: 'RequestProposal'; data: ProposalRequestedData }
  | { type: 'RecordPost'; modChannelId: string; messageId: string; at: string }
  /** `by` has already been checked for ManageGuild (an I/O question, asked before). */
  | { type: 'DecideProposal'; approve: boolean; by: string; at: string }
  | { type: 'ExpireProposal'; at: string }
  | { type: 'RecordOutcome'; ok: boolean; result?: unknown; error?: string; at: string };

export interface ProposalState {
  /** Undefined until requested. */
  view?: ProposalView;
}

export const initialProposalState = (): ProposalState => ({});

const expired = (view: ProposalView, at: string) => Date.parse(at) >= Date.parse(view.expiresAt);

/** What a command makes happen to a proposal; nothing when it no longer applies (idempotent). */
export function decideProposal(c: ProposalCommand, s: ProposalState): ProposalEvent[] {
  const v = s.view;
  switch (c.type) {
    case 'RequestProposal':
      return v ? [] : [{ type: 'ProposalRequested', data: c.data }];
    case 'RecordPost':
      if (!v || v.messageId) return [];
      return [
        {
          type: 'ProposalPosted',
          data: { modChannelId: c.modChannelId, messageId: c.messageId, at: c.at },
        },
      ];
    case 'DecideProposal':
      // A decision counts at the time it was made: one made before the TTL ended, processed
      // after the expiry (the router was down), still decides.
      if (v?.status === 'expired' && !expired(v, c.at)) {
        return [
          {
            type: c.approve ? 'ProposalApproved' : 'ProposalRejected',
            data: { by: c.by, at: c.at },
          },
        ];
      }
      if (v?.status !== 'pending') return [];
      if (expired(v, c.at)) return [{ type: 'ProposalExpired', data: { at: c.at } }];
      return [
        {
          type: c.approve ? 'ProposalApproved' : 'ProposalRejected',
          data: { by: c.by, at: c.at },
        },
      ];
    case 'ExpireProposal':
      return v?.status === 'pending' && expired(v, c.at)
        ? [{ type: 'ProposalExpired', data: { at: c.at } }]
        : [];
    case 'RecordOutcome':
      if (v?.status !== 'approved') return [];
      return c.ok
        ? [{ type: 'ProposalExecuted', data: { result: c.result ?? null, at: c.at } }]
        : [{ type: 'ProposalFailed', data: { error: c.error ?? 'failed', at: c.at } }];
    default: {
      const never: never = c;
      return never;
    }
  }
}

const settle = (v: ProposalView, status: ProposalStatus, at: string): ProposalView => ({
  ...v,
  status,
  at,
});

export function evolveProposal(s: ProposalState, e: ProposalEvent): ProposalState {
  const v = s.view;
  if (e.type === 'ProposalRequested') {
    const { createdAt, ...d } = e.data;
    return { view: { ...d, status: 'pending', createdAt, at: createdAt } };
  }
  if (!v) return s;
  switch (e.type) {
    case 'ProposalPosted':
      return {
        view: {
          ...v,
          modChannelId: e.data.modChannelId,
          messageId: e.data.messageId,
          at: e.data.at,
        },
      };
    case 'ProposalApproved':
      return { view: { ...settle(v, 'approved', e.data.at), decidedBy: e.data.by } };
    case 'ProposalRejected':
      return { view: { ...settle(v, 'rejected', e.data.at), decidedBy: e.data.by } };
    case 'ProposalExpired':
      return { view: settle(v, 'expired', e.data.at) };
    case 'ProposalExecuted':
      return { view: { ...settle(v, 'executed', e.data.at), result: e.data.result } };
    case 'ProposalFailed':
      return { view: { ...settle(v, 'failed', e.data.at), error: e.data.error } };
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** The names a proposal's post shows instead of ids, and whom it mentions. */
export interface ProposalNames {
  /** Channel id → name (without `#`). */
  channels?: Record<string, string>;
  /** User id → display name. */
  members?: Record<string, string>;
  /** Role ids the post mentions (the moderators), once, when it is first posted. */
  mentionRoleIds?: string[];
}

const CHANNEL_ARGS = new Set(['channelId', 'sourceChannelId']);

/** An argument as a moderator reads it: channels and members by name, a message as a link. */
function shownArg(v: ProposalView, key: string, value: unknown, n: ProposalNames): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value !== 'string') return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  if (CHANNEL_ARGS.has(key)) return n.channels?.[value] ? `#${n.channels[value]}` : `<#${value}>`;
  if (key === 'userId') return n.members?.[value] ?? `<@${value}>`;
  if (key === 'messageId') {
    const channel = typeof v.args.channelId === 'string' ? v.args.channelId : v.channelId;
    return `https://discord.com/channels/${v.guildId}/${channel}/${value}`;
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Who asked, by name: the member (and the agent that heard them), or the agent alone. */
export function requesterName(v: ProposalView, n: ProposalNames = {}): string {
  const { agentId, userId } = v.requestedBy;
  const member = userId ? (n.members?.[userId] ?? `<@${userId}>`) : undefined;
  if (member) return agentId ? `${member} (asked ${agentId})` : member;
  return agentId ?? '?';
}

/**
 * The proposal as the mod channel shows it: who asked, where, the action and its arguments
 * by name (channels, members; a message as its link), why, and, on its first post, the
 * moderators' mention.
 */
export function proposalText(v: ProposalView, n: ProposalNames = {}): string {
  const where = n.channels?.[v.channelId] ? `#${n.channels[v.channelId]}` : `<#${v.channelId}>`;
  const args = Object.entries(v.args)
    .map(([k, x]) => `${k}: ${shownArg(v, k, x, n)}`)
    .join(', ');
  return [
    `**Proposal \`${v.proposalId}\`** from ${requesterName(v, n)} in ${where}`,
    `Action: \`${v.skillId}.${v.tool}\`${args ? ` with ${args.length > 1500 ? `${args.slice(0, 1500)}…` : args}` : ''}`,
    v.reason ? `Why: ${v.reason.slice(0, 500)}` : '',
    `React ${APPROVE_EMOJI} to approve or ${REJECT_EMOJI} to reject (members with Manage Server${v.skillId === 'manage_roles' ? ' and Manage Roles' : ''}). Expires ${v.expiresAt}.`,
    n.mentionRoleIds?.length ? n.mentionRoleIds.map((r) => `<@&${r}>`).join(' ') : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** What the steward knows of a member who decides (`member-permissions` in the guild). */
export interface DeciderRights {
  permissions: readonly string[];
  highestRolePosition: number;
  owner: boolean;
}

/**
 * Why a member's ✅ or ❌ does not count (undefined when it does): it needs Manage Server, and
 * for a role change also Manage Roles and a highest role above the role it touches.
 *
 * @example
 * decisionRefusal(view, { permissions: ['ManageGuild'], highestRolePosition: 3, owner: false })
 */
export function decisionRefusal(
  v: Pick<ProposalView, 'skillId'>,
  rights: DeciderRights | undefined,
  role?: { name: string; position: number },
): string | undefined {
  if (!rights) return 'only a member of this server can decide';
  const has = (p: string) =>
    rights.owner || rights.permissions.includes('Administrator') || rights.permissions.includes(p);
  if (!has('ManageGuild')) return 'deciding needs Manage Server';
  if (v.skillId !== 'manage_roles') return undefined;
  if (!has('ManageRoles')) return 'a role change also needs Manage Roles';
  if (role && !rights.owner && role.position >= rights.highestRolePosition)
    return `the role "${role.name}" is at or above your highest role`;
  return undefined;
}

/** The proposal limits (`DIRIGENT_PROPOSALS_PENDING_MAX`, `DIRIGENT_PROPOSALS_PER_MEMBER_HOUR`). */
export interface ProposalLimits {
  pendingMax: number;
  perMemberHour: number;
}

/**
 * Why one more proposal may not be made (undefined when it may), from the durable counts:
 * the guild's pending proposals and the member's proposals of the last hour.
 */
export function proposalLimitRefusal(
  counts: { pending: number; memberLastHour?: number },
  limits: ProposalLimits,
): string | undefined {
  if (counts.pending >= limits.pendingMax)
    return `the moderators already have ${counts.pending} proposals waiting; ask again once they have decided`;
  if (counts.memberLastHour !== undefined && counts.memberLastHour >= limits.perMemberHour)
    return `you have asked for ${counts.memberLastHour} changes in the last hour, the most I pass on to the moderators; try again later`;
  return undefined;
}

/** The proposal id a message of the steward names (its own post, recognised on delivery). */
export function proposalIdIn(content: string): string | undefined {
  return /^\*\*Proposal `([A-Za-z0-9_-]{1,64})`\*\*/.exec(content)?.[1];
}

// ---------- Mod channel ----------

export type ModChannelEvent =
  | { type: 'ModChannelClaimed'; data: { claimId: string; at: string } }
  | { type: 'ModChannelReady'; data: { channelId: string; at: string } };

export type ModChannelCommand =
  /** Take the right to create the channel; a claim older than `leaseMs` may be taken over. */
  /** `gone`: the recorded channel no longer exists (it may be replaced). */
  | { type: 'ClaimModChannel'; claimId: string; at: string; leaseMs: number; gone?: string }
  | { type: 'RecordModChannel'; channelId: string; at: string };

export interface ModChannelState {
  channelId?: string;
  claim?: { claimId: string; at: string };
}

export const initialModChannelState = (): ModChannelState => ({});

export function decideModChannel(c: ModChannelCommand, s: ModChannelState): ModChannelEvent[] {
  switch (c.type) {
    case 'ClaimModChannel': {
      if (s.channelId && s.channelId !== c.gone) return [];
      const held = s.claim && Date.parse(c.at) - Date.parse(s.claim.at) < c.leaseMs;
      return held ? [] : [{ type: 'ModChannelClaimed', data: { claimId: c.claimId, at: c.at } }];
    }
    case 'RecordModChannel':
      return s.channelId === c.channelId
        ? []
        : [{ type: 'ModChannelReady', data: { channelId: c.channelId, at: c.at } }];
    default: {
      const never: never = c;
      return never;
    }
  }
}

export function evolveModChannel(s: ModChannelState, e: ModChannelEvent): ModChannelState {
  switch (e.type) {
    case 'ModChannelClaimed':
      return { ...s, claim: e.data };
    case 'ModChannelReady':
      return { channelId: e.data.channelId };
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Whether a claim result means this caller holds the claim. */
export const holdsClaim = (s: ModChannelState, claimId: string) => s.claim?.claimId === claimId;

/** A proposal's state from its commits' events, in order. */
export const foldProposal = (commits: readonly ProposalEvent[][]): ProposalState =>
  commits.flat().reduce(evolveProposal, initialProposalState());
