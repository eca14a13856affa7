/**
 * What the community soak counts, from the local Discord's messages and the router's events:
 * explicit mentions answered, the longest run of bot messages without a human one, follow-ups
 * lost or doubled, and the router's decision latency without a model call.
 */
import type { RouterDecision, RouterFollowupEvent } from '@dirigent/contracts';
import { percentile, round } from './stats';

interface Mention {
  channelId: string;
  messageId: string;
  agent: string;
  at: number;
  answeredAt?: number;
}

/** A message of a chain, as the soak saw it posted. */
interface ChainLink {
  who: string;
  messageId: string;
  at: number;
  text: string;
  replyTo?: string;
}

/** What a decision says about the message it produced (found by channel and text). */
interface DecisionNote {
  decisionId: string;
  trigger: string;
  inbound?: string;
  mentioned: boolean;
  botRunSeen?: number;
  chosen: string;
  beats: number;
  at: string;
}

/** Decisions remembered for explaining a long chain. */
const NOTES_KEPT = 20_000;

interface Followup {
  scheduled?: RouterFollowupEvent;
  fired: number;
  aborted: number;
  decisions: number;
  /** When the soak saw it settle (its first `fired` or `aborted` event). */
  settledAt?: number;
  channelId?: string;
  reason?: string;
}

/** The router's goal for reading the room (issue's p99). */
const SLOW_GATHER_MS = 20;

/** Counts as the soak runs; `report` at the end. */
export class CommunityLedger {
  messages = 0;
  humanMessages = 0;
  botMessages = 0;
  private readonly mentions: Mention[] = [];
  private readonly chains = new Map<string, ChainLink[]>();
  longestBotRun = 0;
  private readonly longRuns: string[] = [];
  /** Each chain over 3 bot messages, with the decisions behind its messages and the kills near it. */
  private readonly longChainsByStart = new Map<string, string>();
  private readonly notes = new Map<string, DecisionNote>();
  private readonly kills: number[] = [];
  private readonly followups = new Map<string, Followup>();
  private readonly followupEventIds = new Set<string>();
  private readonly modelFreeMs: number[] = [];
  private readonly allMs: number[] = [];
  /** The decision alone (scoring and the choice from gathered inputs), and reading the room. */
  private readonly decideMs: number[] = [];
  private readonly gatherMs: number[] = [];
  /** Gathers over the goal (20 ms): when (ms since epoch) and which inputs were late. */
  private readonly slowGathers: { at: number; late: string[] }[] = [];
  decisions = 0;
  burstsStopped = 0;
  /** Turns whose messages the bots' run cut short (`held-back` events). */
  heldBack = 0;

  /** A human message; `agents` are the agents it mentions explicitly. */
  human(
    channelId: string,
    messageId: string,
    agents: string[],
    at: number,
    link?: { who: string; text: string },
  ): void {
    this.messages++;
    this.humanMessages++;
    this.chains.set(channelId, [
      { who: link?.who ?? 'human', messageId, at, text: link?.text ?? '' },
    ]);
    for (const agent of agents) this.mentions.push({ channelId, messageId, agent, at });
  }

  /** A message of an agent (its webhook's name). */
  bot(
    channelId: string,
    agent: string,
    at: number,
    link?: { messageId: string; text: string; replyTo?: string },
  ): void {
    this.messages++;
    this.botMessages++;
    const chain = this.chains.get(channelId) ?? [];
    this.chains.set(channelId, chain);
    chain.push({
      who: agent,
      messageId: link?.messageId ?? '?',
      at,
      text: link?.text ?? '',
      replyTo: link?.replyTo,
    });
    const run = chain.filter((l) => l.who !== 'human' && !l.who.startsWith('human:')).length;
    if (run > this.longestBotRun) this.longestBotRun = run;
    if (run > 3 && this.longRuns.length < 5) this.longRuns.push(`${channelId}:${agent}:${run}`);
    if (run > 3) this.longChainsByStart.set(chain[0].messageId, this.explain(channelId, chain));
    for (const m of this.mentions) {
      if (m.answeredAt === undefined && m.channelId === channelId && m.agent === agent)
        m.answeredAt = at;
    }
  }

  get longChains(): string[] {
    return [...this.longChainsByStart.values()];
  }

  /** An agent reacted to a message (at its decision, or held back by the bots' run). */
  reacted(messageId: string, agent: string): void {
    const m = this.mentions.find((x) => x.messageId === messageId && x.agent === agent);
    if (m && m.answeredAt === undefined) m.answeredAt = Date.now();
  }

  /** The router was SIGKILLed at `at`. */
  kill(at: number): void {
    this.kills.push(at);
  }

  /**
   * The gathers over 20 ms: how many came within 10 s of a router restart, and how many
   * named each late input (none: every input in, the wait was elsewhere).
   */
  private slowBreakdown(): string {
    const afterKill = this.slowGathers.filter((g) =>
      this.kills.some((k) => g.at >= k && g.at - k <= 10_000),
    ).length;
    const late = new Map<string, number>();
    for (const g of this.slowGathers) {
      for (const name of g.late.length ? g.late : ['none']) {
        late.set(name, (late.get(name) ?? 0) + 1);
      }
    }
    const named = [...late].map(([n, c]) => `${n}:${c}`).join(' ');
    return `${this.slowGathers.length} over ${SLOW_GATHER_MS} ms, ${afterKill} within 10 s of a restart; late ${named}`;
  }

  /**
   * The three follow-ups that settled longest after they were due: their channel, when they
   * were due, how they settled, and how long after the last router SIGKILL before them they
   * came due.
   */
  private slowestSettles(all: { id: string; lag: number; f: Followup }[]): string {
    const iso = (ms: number) => new Date(ms).toISOString().slice(11, 23);
    return all
      .sort((a, b) => b.lag - a.lag)
      .slice(0, 3)
      .filter((x) => x.lag > 10_000)
      .map(({ id, lag, f }) => {
        const due = Date.parse(f.scheduled!.dueAt);
        const kill = this.kills.filter((k) => k <= due).pop();
        const sinceKill =
          kill === undefined ? '' : ` ${round((due - kill) / 1000, 1)} s after a kill`;
        const where = f.channelId ? ` in ${f.channelId}` : '';
        return `${id.slice(0, 8)}${where} due ${iso(due)}${sinceKill}, ${f.reason} +${round(lag / 1000, 1)} s`;
      })
      .join('; ');
  }

  /** A chain of messages with, for each bot message, the decision that planned it. */
  private explain(channelId: string, chain: ChainLink[]): string {
    const t0 = chain[0].at;
    const iso = (ms: number) => new Date(ms).toISOString().slice(11, 23);
    const lines = chain.map((l) => {
      const n = this.notes.get(`${channelId}\u0000${l.who}\u0000${l.text.trim()}`);
      const why = n
        ? ` <- decision ${n.decisionId.slice(0, 8)} ${n.trigger} on ${n.inbound ?? '-'} mentioned=${n.mentioned} botRunSeen=${n.botRunSeen ?? '?'} ${n.chosen} beats=${n.beats} at ${n.at.slice(11, 23)}`
        : l.replyTo
          ? ` <- the orchestrator's answer to ${l.replyTo}`
          : '';
      return `  ${iso(l.at)} +${l.at - t0}ms ${l.who} ${l.messageId} "${l.text.slice(0, 40)}"${why}`;
    });
    const near = this.kills.filter((k) => k >= t0 - 15_000 && k <= chain[chain.length - 1].at);
    const kills = near.length ? `  router SIGKILLed at ${near.map(iso).join(', ')}` : '';
    return [`channel ${channelId}, ${chain.length - 1} bot messages:`, ...lines, kills]
      .filter(Boolean)
      .join('\n');
  }

  /** A decision; a reaction to a mention answers it too (not silent, no message). */
  decision(d: RouterDecision): void {
    if (d.reaction && d.inboundMessageId) this.reacted(d.inboundMessageId, d.agentId);
    this.decisions++;
    for (const b of d.beats) {
      this.notes.set(`${d.channelId}\u0000${d.agentId}\u0000${b.text.trim()}`, {
        decisionId: d.decisionId,
        trigger: d.trigger,
        inbound: d.inboundMessageId,
        mentioned: d.inputs?.mentioned ?? false,
        botRunSeen: d.inputs?.room?.botRun,
        chosen: `${d.agentId}/${d.chosen}`,
        beats: d.beats.length,
        at: d.at ?? '',
      });
      if (this.notes.size > NOTES_KEPT) this.notes.delete(this.notes.keys().next().value!);
    }
    this.allMs.push(d.latencyMs);
    if (!d.models.length) this.modelFreeMs.push(d.latencyMs);
    if (d.timings) {
      this.decideMs.push(d.timings.decideMs);
      this.gatherMs.push(d.timings.gatherMs);
      if (d.timings.gatherMs > SLOW_GATHER_MS) {
        this.slowGathers.push({ at: Date.now(), late: d.inputs?.late ?? [] });
      }
    }
    if (d.trigger === 'self-followup' && d.followupId) this.followup(d.followupId).decisions++;
  }

  /**
   * A follow-up event; `eventId` its envelope id: one published again after a SIGKILL is the
   * same event (the stream stores it once), though a plain subscriber sees it twice.
   * `channelId` is its subject's.
   */
  followupEvent(e: RouterFollowupEvent, eventId?: string, channelId?: string): void {
    if (eventId) {
      if (this.followupEventIds.has(eventId)) return;
      this.followupEventIds.add(eventId);
    }
    const f = this.followup(e.followupId);
    f.channelId ??= channelId;
    if (e.status === 'scheduled') {
      f.scheduled = e;
      return;
    }
    if (e.status === 'fired') f.fired++;
    else f.aborted++;
    f.settledAt ??= Date.now();
    f.reason ??= e.reason ?? e.status;
  }

  /** Follow-ups due by `dueBy` that have not settled yet (ids). */
  unsettled(dueBy: number): string[] {
    return [...this.followups]
      .filter(([, f]) => f.scheduled && Date.parse(f.scheduled.dueAt) <= dueBy && !f.settledAt)
      .map(([id]) => id);
  }

  private followup(id: string): Followup {
    let f = this.followups.get(id);
    if (!f) {
      f = { fired: 0, aborted: 0, decisions: 0 };
      this.followups.set(id, f);
    }
    return f;
  }

  /**
   * Mentions made before `answeredBy` count (later ones may still be on their way);
   * follow-ups due before `settledBy` must have settled once.
   */
  report(answeredBy: number, settledBy: number): Record<string, number | string> {
    const due = this.mentions.filter((m) => m.at <= answeredBy);
    const answered = due.filter((m) => m.answeredAt !== undefined);
    const waits = answered.map((m) => m.answeredAt! - m.at);
    const unanswered = due.filter((m) => m.answeredAt === undefined);
    let lost = 0;
    let doubled = 0;
    let scheduled = 0;
    let fired = 0;
    let late = 0;
    const lateness: number[] = [];
    const slowest: { id: string; lag: number; f: Followup }[] = [];
    const reasons = new Map<string, number>();
    for (const [id, f] of this.followups) {
      if (!f.scheduled || Date.parse(f.scheduled.dueAt) > settledBy) continue;
      scheduled++;
      fired += f.fired ? 1 : 0;
      const settled = f.fired + f.aborted;
      // Lost: never settled (the run drains first), or fired without its decision.
      if (settled === 0 || (f.fired > 0 && f.decisions === 0)) lost++;
      if (settled > 1 || f.decisions > 1) doubled++;
      if (f.settledAt === undefined) continue;
      lateness.push(f.settledAt - Date.parse(f.scheduled.dueAt));
      slowest.push({ id, lag: lateness[lateness.length - 1], f });
      if (f.settledAt > settledBy) late++;
      reasons.set(f.reason!, (reasons.get(f.reason!) ?? 0) + 1);
    }
    return {
      messages: this.messages,
      humanMessages: this.humanMessages,
      botMessages: this.botMessages,
      mentions: due.length,
      mentionsAnsweredPct: due.length ? round((100 * answered.length) / due.length, 2) : 100,
      mentionAnswerP50Ms: round(percentile(waits, 50)),
      mentionAnswerP99Ms: round(percentile(waits, 99)),
      unansweredExamples: unanswered
        .slice(0, 5)
        .map((m) => `${m.channelId}:${m.agent}@${new Date(m.at).toISOString()}`)
        .join(' '),
      longestBotChain: this.longestBotRun,
      longBotChainExamples: this.longRuns.join(' '),
      decisions: this.decisions,
      decisionPureP50Ms: round(percentile(this.decideMs, 50), 3),
      decisionPureP99Ms: round(percentile(this.decideMs, 99), 3),
      decisionPureMaxMs: round(Math.max(0, ...this.decideMs), 3),
      gatherP50Ms: round(percentile(this.gatherMs, 50), 1),
      gatherP99Ms: round(percentile(this.gatherMs, 99), 1),
      gatherSlow: this.slowBreakdown(),
      decisionModelFreeP50Ms: round(percentile(this.modelFreeMs, 50), 2),
      decisionModelFreeP99Ms: round(percentile(this.modelFreeMs, 99), 2),
      decisionAllP99Ms: round(percentile(this.allMs, 99), 2),
      followupsDue: scheduled,
      followupsFired: fired,
      followupsLost: lost,
      followupsDoubled: doubled,
      followupsSettledAfterGrace: late,
      followupSettleLagP50Ms: round(percentile(lateness, 50)),
      followupSettleLagP99Ms: round(percentile(lateness, 99)),
      followupSettleLagMaxMs: round(Math.max(0, ...lateness)),
      followupOutcomes: [...reasons].map(([r, n]) => `${r}:${n}`).join(' '),
      followupSlowestSettles: this.slowestSettles(slowest),
      burstsStopped: this.burstsStopped,
      heldBack: this.heldBack,
    };
  }
}
