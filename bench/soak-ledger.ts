/**
 * What the soak counts, from what every core-NATS subscriber sees of the grants and what
 * the scripted agents do with them. Pure bookkeeping: times are passed in.
 */
export class SoakLedger {
  turns = 0;
  /** A second grant in a channel while a granted turn there is still open. */
  doubleGrants = 0;
  /** The same grant published again (a core-NATS subscriber sees it twice). */
  repeatedGrants = 0;
  /** check-turn said no to the agent holding the channel's open grant. */
  refusals = 0;
  private readonly seen = new Set<string>();
  private readonly open = new Map<string, string | null>();
  private readonly lastGrantAt = new Map<string, number>();
  private readonly stuck = new Set<string>();
  private maxGap = 0;
  private readonly takeovers: number[] = [];
  /** Channels waiting for their next grant when the coordinator was killed, and since when. */
  private readonly waitingSinceKill = new Map<string, number>();
  readonly examples: string[] = [];
  /** Channels whose next grant after a kill took more than 5 s, and when they waited from. */
  readonly slow = new Map<string, number>();
  /** Per kill: the first grant in any channel afterwards (the new instance is up). */
  readonly firstGrantAfterKill: number[] = [];
  private lastKillAt: number | null = null;
  /** The channels the last kill took away (all when not known). */
  private lastKillChannels: ReadonlySet<string> | null = null;

  constructor(private readonly stuckAfterMs: number) {}

  watch(channelId: string, now: number): void {
    this.open.set(channelId, null);
    this.lastGrantAt.set(channelId, now);
  }

  granted(channelId: string, turnId: string, now: number): void {
    if (this.seen.has(turnId)) {
      this.repeatedGrants++;
      this.note(`grant ${turnId} published again`);
      return;
    }
    this.seen.add(turnId);
    this.turns++;
    const open = this.open.get(channelId);
    if (open) {
      this.doubleGrants++;
      this.note(`grant ${turnId} while ${open} was open`);
    }
    this.open.set(channelId, turnId);
    this.lastGrantAt.set(channelId, now);
    if (this.lastKillAt !== null && (this.lastKillChannels?.has(channelId) ?? true)) {
      this.firstGrantAfterKill.push(now - this.lastKillAt);
      this.lastKillAt = null;
    }
    const killedAt = this.waitingSinceKill.get(channelId);
    if (killedAt !== undefined) {
      this.takeovers.push(now - killedAt);
      if (now - killedAt > 5_000) this.slow.set(channelId, killedAt);
      if (now - killedAt > 10_000) {
        this.note(`channel ${channelId}: next grant ${now - killedAt} ms after a kill`);
      }
      this.waitingSinceKill.delete(channelId);
    }
  }

  /** The agent is about to report turn `turnId` complete. */
  completing(channelId: string, turnId: string): void {
    if (this.open.get(channelId) === turnId) this.open.set(channelId, null);
  }

  /** check-turn refused `turnId`'s agent: a defect only while that grant is the open one. */
  refused(channelId: string, turnId: string): void {
    if (this.open.get(channelId) !== turnId) return;
    this.refusals++;
    this.note(`check-turn refused the holder of ${turnId}`);
  }

  isOpen(channelId: string, turnId: string): boolean {
    return this.open.get(channelId) === turnId;
  }

  /**
   * The coordinator was killed: channels waiting for their next grant time the takeover.
   * With several replicas, `channels` are those the killed one served (the others go on).
   */
  killed(now: number, channels?: ReadonlySet<string>): void {
    this.lastKillAt = now;
    this.lastKillChannels = channels ?? null;
    for (const [channelId, turnId] of this.open) {
      if (channels && !channels.has(channelId)) continue;
      if (turnId === null && !this.waitingSinceKill.has(channelId)) {
        this.waitingSinceKill.set(channelId, now);
      }
    }
  }

  tick(now: number): void {
    for (const [channelId, at] of this.lastGrantAt) {
      const gap = now - at;
      this.maxGap = Math.max(this.maxGap, gap);
      if (gap > this.stuckAfterMs && !this.stuck.has(channelId)) {
        this.stuck.add(channelId);
        this.note(`channel ${channelId} without a grant for ${Math.round(gap / 1000)} s`);
      }
    }
  }

  private note(what: string): void {
    if (this.examples.length < 20) this.examples.push(what);
  }

  report(now: number): Record<string, number> {
    // Still waiting at the end counts as it stands.
    const waiting = [...this.waitingSinceKill.values()].map((at) => now - at);
    const sorted = [...this.takeovers, ...waiting].sort((a, b) => a - b);
    return {
      turns: this.turns,
      doubleGrants: this.doubleGrants,
      repeatedGrants: this.repeatedGrants,
      refusals: this.refusals,
      stuckChannels: this.stuck.size,
      maxGapMs: Math.round(this.maxGap),
      takeoverMaxMs: Math.round(sorted[sorted.length - 1] ?? 0),
      takeoverP50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
      firstGrantAfterKillMaxMs: Math.round(Math.max(0, ...this.firstGrantAfterKill)),
    };
  }
}
