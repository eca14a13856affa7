import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../config';
import { ChannelMembers, MemoryLenses, ModelGateway } from './clients';

/** Small: a hit count says whether memory holds something, not what. */
const MEMORY_PROBE_K = 3;
/** How long a topic's hit count is reused (every agent deciding on one message asks it). */
const HITS_TTL_MS = 10_000;
/** Topics remembered at most (the oldest go first). */
const HITS_KEPT = 500;
/**
 * How long a guild's budget fraction or a channel's member list is taken as it was read,
 * without asking again; after half of it, a decision that takes it asks again for the next.
 */
export const PROBE_FRESH_MS = 2000;

/**
 * What the other services say of the room, for a decision's inputs, each best effort (a
 * service that does not answer leaves its input out): the guild's budget fraction (the
 * gateway), the channel's members (the ingest), whether memory holds something on a topic.
 *
 * A topic's memory probe is asked once for every agent deciding on the same message (the
 * search in flight or its answer is shared for {@link HITS_TTL_MS}), and can be asked ahead
 * of the lanes (`ReadTheRoom.prefetch`). The last answer of each probe is kept, as the
 * input already known when a fresh answer misses a decision's deadline (`known*`).
 */
@Injectable()
export class RoomProbes {
  private readonly hits = new Map<string, { at: number; hits: Promise<number | undefined> }>();
  private readonly budgets = new Fresh<number | undefined>();
  private readonly memberLists = new Fresh<string[]>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly models: ModelGateway,
    private readonly members: ChannelMembers,
    private readonly memory: MemoryLenses,
  ) {}

  /** The guild's budget fraction: as read within {@link PROBE_FRESH_MS}, else asked. */
  budgetFraction(guildId: string): Promise<number | undefined> {
    return this.budgets.get(guildId, () =>
      this.models.budgetFraction(guildId).catch(() => undefined),
    );
  }

  /** The last budget fraction the gateway gave for the guild, if any. */
  knownBudgetFraction(guildId: string): number | undefined {
    return this.budgets.known(guildId);
  }

  /** The channel's members: as read within {@link PROBE_FRESH_MS}, else asked. */
  channelMembers(guildId: string, channelId: string): Promise<string[]> {
    return this.memberLists
      .get(channelId, () => this.members.list(guildId, channelId).catch(() => undefined))
      .then((ids) => ids ?? []);
  }

  /** The last member list the ingest gave for the channel (empty when none yet). */
  knownMembers(channelId: string): string[] {
    return this.memberLists.known(channelId) ?? [];
  }

  /** Hits that `channelId`'s audience may see: the decision is about answering there. */
  memoryHits(guildId: string, channelId: string, topic: string): Promise<number | undefined> {
    return this.memoryProbe(guildId, channelId, topic).hits;
  }

  /** {@link memoryHits}, and when it was asked (a decision's deadline counts from then). */
  memoryProbe(
    guildId: string,
    channelId: string,
    topic: string,
  ): { at: number; hits: Promise<number | undefined> } {
    const key = `${guildId}\n${channelId}\n${topic}`;
    const now = Date.now();
    const held = this.hits.get(key);
    if (held && now - held.at < HITS_TTL_MS) return held;
    const hits = this.memory
      .hits(guildId, channelId, topic, MEMORY_PROBE_K, this.config.DIRIGENT_ROUTER_MEMORY_PROBE_MS)
      .catch(() => undefined);
    // Not answered is not kept: the next decision asks again.
    void hits.then(
      (n) => n === undefined && this.hits.get(key)?.hits === hits && this.hits.delete(key),
    );
    const probe = { at: now, hits };
    this.hits.delete(key);
    this.hits.set(key, probe);
    if (this.hits.size > HITS_KEPT) this.hits.delete(this.hits.keys().next().value!);
    return probe;
  }
}

/**
 * A probe's answers by key: an answer younger than {@link PROBE_FRESH_MS} is given as it is
 * (one past half of that is asked again in the background, for the next); an older one is
 * asked for, one question at a time per key. An empty answer (`undefined`, no members) is
 * not kept.
 */
class Fresh<V> {
  private readonly answers = new Map<string, { at: number; value: V }>();
  private readonly asking = new Map<string, Promise<V | undefined>>();

  get(key: string, ask: () => Promise<V | undefined>): Promise<V | undefined> {
    const a = this.answers.get(key);
    const age = a ? Date.now() - a.at : Infinity;
    if (age < PROBE_FRESH_MS) {
      if (age >= PROBE_FRESH_MS / 2) void this.ask(key, ask);
      return Promise.resolve(a!.value);
    }
    return this.ask(key, ask);
  }

  known(key: string): V | undefined {
    return this.answers.get(key)?.value;
  }

  private ask(key: string, ask: () => Promise<V | undefined>): Promise<V | undefined> {
    let p = this.asking.get(key);
    if (!p) {
      p = ask().then((v) => {
        this.asking.delete(key);
        if (v !== undefined && !(Array.isArray(v) && v.length === 0))
          this.answers.set(key, { at: Date.now(), value: v });
        return v;
      });
      this.asking.set(key, p);
    }
    return p;
  }
}
