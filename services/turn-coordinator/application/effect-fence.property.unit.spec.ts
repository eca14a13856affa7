import fc from 'fast-check';
import type { ChannelEvent, ChannelState } from '@dirigent/turn-domain';
import { evolveChannel, initialChannelState } from '@dirigent/turn-domain';
import {
  ALICE,
  BOB,
  CAROL,
  chatWorld,
  type ChannelWorld,
} from '../../../libs/turn-domain/testing/channel-world';
import { isCurrent, isFenced, planEffects, type PlannedEffect } from './effect-fence';

/**
 * A pure model of the reactor under crashes: the channel's commits, a durable consumer that
 * delivers them (redelivering whatever was not acked), a reactor that may die between any
 * two effects, and agents and humans that keep the channel moving meanwhile. The reactor
 * uses the service's own planning and fencing; the store's latest state and the grant
 * stream's last grant are what the service reads.
 */
type Step =
  | { k: 'deliver'; preferOld: boolean }
  | { k: 'effect' }
  | { k: 'kill' }
  | { k: 'expire' }
  | { k: 'speak' }
  | { k: 'pass' }
  | { k: 'human' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ k: fc.constant('deliver' as const), preferOld: fc.boolean() }),
  },
  { weight: 8, arbitrary: fc.record({ k: fc.constant('effect' as const) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('kill' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('expire' as const) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('speak' as const) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('pass' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('human' as const) }) },
);

interface Commit {
  seq: number;
  events: ChannelEvent[];
}

interface InFlight {
  commit: Commit;
  effects: PlannedEffect[];
  next: number;
}

class Model {
  readonly world: ChannelWorld = chatWorld([ALICE, BOB, CAROL]);
  readonly commits: Commit[] = [];
  /** Commits delivered and not acked in time (their reactor died, or was slow). */
  private readonly unacked: Commit[] = [];
  private delivered = 0;
  private inFlight: InFlight | null = null;
  private lastStoredGrant: string | null = null;
  readonly published: string[] = [];
  readonly violations: string[] = [];

  constructor() {
    this.commits.push({ seq: 1, events: [...this.world.log] });
  }

  private append(events: ChannelEvent[]): void {
    if (events.length) this.commits.push({ seq: this.commits.length + 1, events });
  }

  private stateBefore(seq: number): ChannelState {
    return this.commits
      .filter((c) => c.seq < seq)
      .flatMap((c) => c.events)
      .reduce(evolveChannel, initialChannelState(this.world.state.channelId));
  }

  step(s: Step): void {
    const turn = this.world.state.currentTurn;
    switch (s.k) {
      case 'speak':
      case 'pass':
        if (!turn) return;
        if (s.k === 'pass') this.append(this.world.pass().events);
        else {
          const text = `reply ${this.commits.length}`;
          this.append(this.world.complete(turn.agentId, text).events);
          const a = [ALICE, BOB, CAROL].find((x) => x.agentId === turn.agentId)!;
          this.append(this.world.post(a, text).events);
        }
        return;
      case 'human':
        this.append(this.world.human().events);
        return;
      case 'kill':
        if (this.inFlight) this.unacked.push(this.inFlight.commit);
        this.inFlight = null;
        return;
      case 'expire':
        // The ack wait ran out while the reactor still works on it: another copy follows.
        if (this.inFlight) this.unacked.push(this.inFlight.commit);
        return;
      case 'deliver': {
        if (this.inFlight) return;
        let commit: Commit | undefined;
        if (this.unacked.length && (s.preferOld || this.delivered >= this.commits.length)) {
          commit = this.unacked.shift();
        } else if (this.delivered < this.commits.length) {
          commit = this.commits[this.delivered++];
        }
        if (!commit) return;
        const plan = planEffects(
          this.stateBefore(commit.seq),
          commit.events,
          commit.seq,
          this.world.config,
        );
        this.inFlight = { commit, effects: plan.effects, next: 0 };
        return;
      }
      case 'effect': {
        const f = this.inFlight;
        if (!f) return;
        if (f.next >= f.effects.length) {
          this.inFlight = null; // acked (a copy already redelivered still comes)
          return;
        }
        this.perform(f.effects[f.next++]);
        return;
      }
    }
  }

  private perform(p: PlannedEffect): void {
    const open = this.world.state.currentTurn?.turnId ?? null;
    if (!isCurrent(p, open)) return;
    if (p.effect.kind === 'publish-granted') {
      if (this.lastStoredGrant === p.effect.turnId) return;
      if (this.published.includes(p.effect.turnId))
        this.violations.push(`grant ${p.effect.turnId} published twice`);
      this.published.push(p.effect.turnId);
      this.lastStoredGrant = p.effect.turnId;
    }
    if (isFenced(p) && p.effect.kind !== 'publish-granted' && p.turnId !== open)
      this.violations.push(`${p.effect.kind} for stale turn ${p.turnId}`);
    if (p.effect.kind === 'publish-granted' && p.effect.turnId !== open)
      this.violations.push(`stale grant ${p.effect.turnId}`);
  }

  /** Lets the reactor catch up without further crashes. */
  drain(): void {
    for (
      let i = 0;
      i < 10_000 && (this.inFlight || this.unacked.length || this.delivered < this.commits.length);
      i++
    ) {
      this.step(this.inFlight ? { k: 'effect' } : { k: 'deliver', preferOld: true });
    }
  }
}

describe('reactor effects fenced by turn, under kills and redeliveries', () => {
  it('never publishes a stale grant, never two grants while one is open, and the open turn is granted', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 120 }), (steps) => {
        const m = new Model();
        m.step({ k: 'human' });
        for (const s of steps) m.step(s);
        m.drain();
        expect(m.violations).toEqual([]);
        // Liveness: once the reactor caught up, the open turn (if any) has been granted.
        const open = m.world.state.currentTurn?.turnId;
        if (open) expect(m.published).toContain(open);
      }),
      { numRuns: 500 },
    );
  });

  it('skips the grant of a redelivered commit whose turn has ended', () => {
    const m = new Model();
    m.step({ k: 'human' });
    m.step({ k: 'deliver', preferOld: false }); // the channel's creation
    m.step({ k: 'effect' });
    m.step({ k: 'effect' });
    m.step({ k: 'deliver', preferOld: false }); // the human wakes it: grant 1
    while (m.published.length === 0) m.step({ k: 'effect' });
    expect(m.published).toHaveLength(1);
    m.step({ k: 'kill' }); // before the ack
    m.step({ k: 'pass' }); // the agent saw grant 1 and passed: grant 2 is committed
    m.drain();
    expect(m.violations).toEqual([]);
    expect(m.published).toHaveLength(2);
    expect(m.published[1]).toBe(m.world.state.currentTurn?.turnId);
  });
});
