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

/** The proposal as the mod channel shows it: the action, its arguments and why. */
export function proposalText(v: ProposalView): string {
  const args = JSON.stringify(v.args);
  const by = v.requestedBy.agentId ?? (v.requestedBy.userId ? `<@${v.requestedBy.userId}>` : '?');
  return [
    `**Proposal \`${v.proposalId}\`** from ${by} in <#${v.channelId}>`,
    `Action: \`${v.skillId}.${v.tool}\` with \`${args.length > 1500 ? `${args.slice(0, 1500)}…` : args}\``,
    v.reason ? `Why: ${v.reason.slice(0, 500)}` : '',
    `React ${APPROVE_EMOJI} to approve or ${REJECT_EMOJI} to reject (members with Manage Server). Expires ${v.expiresAt}.`,
  ]
    .filter(Boolean)
    .join('\n');
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
