import { randomUUID } from 'node:crypto';
import type { RouterDecision, RouterDecisionTimings, RouterTrigger } from '@dirigent/contracts';
import type { Lineage } from '@dirigent/reactor';
import {
  rollFollowup,
  routeFromInputs,
  type AgentPersona,
  type Beat,
  type DecisionInputs,
  type Disposition,
  type FollowupBias,
  type InterruptionAction,
} from '@dirigent/router-domain';
import type { SeenMessage } from './channel-activity';
import type { Composed } from './compose-reply';

export interface TurnRequest {
  guildId: string;
  channelId: string;
  agent: AgentPersona;
  trigger: RouterTrigger;
  inbound?: SeenMessage;
  mentioned: boolean;
  seed: string;
  bias?: FollowupBias;
  parentDecisionId?: string;
  followupId?: string;
  /** A coordinator grant: the turn is completed (empty when silent). */
  grant?: { turnId: string };
  /**
   * An interruption: the parent's disposition, beats already sent, those withheld, and what
   * the new message asks for (`classifyInterruption`).
   */
  interruption?: {
    parentDispositionId: string;
    atBeat: number;
    withheld: string[];
    action: InterruptionAction;
  };
  previous?: string;
  /** Why the turn runs (the reactor job, the event or timer, the run that scheduled it). */
  lineage?: Lineage;
}

export interface Choice {
  inputs: DecisionInputs;
  routed: ReturnType<typeof routeFromInputs>;
  /** The chosen disposition, read through the turn's lens. */
  disposition: Disposition;
  /** The tie-break's pick, when the model made one. */
  classified?: { id: string; model: string; costUsd: number };
  timings: RouterDecisionTimings;
}

/** Milliseconds to the microsecond. */
export const ms = (x: number) => Math.round(x * 1000) / 1000;

/** What the chosen shape will say: beats, or a reaction on `target`. */
export interface Planned {
  beats: Beat[];
  reaction?: string;
  target?: string;
  composed?: Composed;
}

/** The decision record: what was read, chosen and planned, and the seeded follow-up roll. */
export function decisionRecord(
  r: TurnRequest,
  { inputs, routed, disposition: d, classified, timings }: Choice,
  { beats, reaction, composed }: Planned,
  interrupted: RouterDecision['interrupted'],
  started: number,
  { now, followupsEnabled }: { now: number; followupsEnabled: boolean },
): RouterDecision {
  const speaks = beats.length > 0 || reaction !== undefined;
  const plan =
    speaks && followupsEnabled
      ? rollFollowup(d.selfFollowupHint, {
          seed: r.seed,
          now: now,
          trigger: r.trigger,
        })
      : null;
  return {
    decisionId: randomUUID(),
    guildId: r.guildId,
    channelId: r.channelId,
    agentId: r.agent.id,
    trigger: r.trigger,
    ...(r.inbound ? { inboundMessageId: r.inbound.messageId } : {}),
    ...(r.parentDecisionId ? { parentDecisionId: r.parentDecisionId } : {}),
    ...(r.followupId ? { followupId: r.followupId } : {}),
    candidates: routed.candidates,
    chosen: d.id,
    seed: r.seed,
    dimensions: routed.dimensions,
    inputs,
    ...(routed.lensSwap ? { lensSwap: routed.lensSwap } : {}),
    subagents: composed?.runs.map((x) => x.persona) ?? [],
    beats,
    ...(reaction ? { reaction } : {}),
    ...(plan
      ? {
          followup: {
            followupId: randomUUID(),
            bias: plan.bias,
            dueAt: new Date(plan.dueAt).toISOString(),
          },
        }
      : {}),
    ...(interrupted ? { interrupted } : {}),
    ...(r.lineage ? { lineage: r.lineage } : {}),
    ...(r.agent.personaVersion !== undefined ? { personaVersion: r.agent.personaVersion } : {}),
    ...(composed?.toolCalls.length ? { toolCalls: composed.toolCalls } : {}),
    latencyMs: Math.round(now - started),
    timings,
    costUsd: (composed?.costUsd ?? 0) + (classified?.costUsd ?? 0),
    models: [...new Set([...(classified ? [classified.model] : []), ...(composed?.models ?? [])])],
    at: new Date(now).toISOString(),
  };
}
