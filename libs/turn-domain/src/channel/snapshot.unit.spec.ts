import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { ChannelCommand } from './commands';
import type { ChannelEvent } from './events';
import { evolveChannel, initialChannelState, replayChannel } from './evolve';
import { CHANNEL_STATE_KEYS, CHANNEL_STATE_SCHEMA, isChannelState } from './snapshot';
import type { ChannelState } from './types';
import { DEFAULT_TURN_CONFIG } from './types';
import {
  ALICE,
  BOB,
  CAROL,
  CHANNEL,
  ChannelWorld,
  DAVE,
  GUILD,
  HUMAN,
  OTHER_BOT,
} from '../../testing/channel-world';

const POOL = [ALICE, BOB, CAROL, DAVE];
const STEPS = [
  'human',
  'humanStart',
  'humanEnd',
  'speak',
  'pass',
  'complete',
  'deliver',
  'deliveryTimeout',
  'speakerTimeout',
  'advance',
  'refresh',
  'shuffle',
  'setMode',
  'typing',
  'typingExpired',
  'bot',
  'wakeMode',
] as const;
type Step = (typeof STEPS)[number];

/** A command for `step` in the world's current state (null: nothing to do). */
function command(w: ChannelWorld, step: Step, n: number, seed: number): ChannelCommand | null {
  const turn = w.state.currentTurn;
  const at = 1_700_000_000_000 + n * 1000;
  const seeded = <C extends ChannelCommand>(c: C): C => ({ ...c, seed, at });
  const speaker = turn ? { bot: true, agentId: turn.agentId } : {};
  switch (step) {
    case 'human':
      return seeded(w.message(HUMAN, `hello ${n}`));
    case 'humanStart':
      return seeded(w.message(HUMAN, '↗️ a long one'));
    case 'humanEnd':
      return seeded(w.message(HUMAN, 'that is all ↙️'));
    case 'complete':
      return turn
        ? seeded({
            type: 'CompleteTurn',
            data: {
              agentId: turn.agentId,
              runId: `run-${n}`,
              text: `reply ${n}`,
              turnId: turn.turnId,
            },
          })
        : null;
    case 'pass':
      return turn
        ? seeded({
            type: 'CompleteTurn',
            data: { agentId: turn.agentId, runId: `run-${n}`, text: 'NO_REPLY' },
          })
        : null;
    case 'deliver':
      return turn ? seeded(w.message(turn.discordUserId, `reply ${n - 1}`, speaker)) : null;
    case 'speak':
      return null; // complete, then its delivery: two commands (see the history)
    case 'deliveryTimeout':
      return seeded({ type: 'DeliveryTimeout', data: { turnId: turn?.turnId ?? 'stale:0' } });
    case 'speakerTimeout':
      return seeded({ type: 'SpeakerTimeout', data: { turnId: turn?.turnId ?? 'stale:0' } });
    case 'advance':
      return seeded({ type: 'AdvanceTurn', data: { requestedBy: 'ops' } });
    case 'refresh':
      return seeded({
        type: 'RefreshMembers',
        data: { agents: POOL.filter((_, i) => (seed >> i) & 1) },
      });
    case 'shuffle':
      return seeded({ type: 'SetShuffle', data: { shuffle: [true, false, null][seed % 3] } });
    case 'setMode':
      return seeded({
        type: 'SetMode',
        data: {
          guildId: GUILD,
          mode: ['chat', 'none', 'report'][seed % 3],
          agents: [...w.state.members],
        },
      });
    case 'typing':
      return seeded({ type: 'TypingStarted', data: { userId: HUMAN } });
    case 'typingExpired':
      return seeded({
        type: 'TypingHoldExpired',
        data: { until: w.state.typingHold?.until ?? at },
      });
    case 'bot':
      return seeded(w.message(OTHER_BOT, 'beep', { bot: true }));
    case 'wakeMode':
      return seeded({
        type: 'SetWakeMode',
        data: { wakeMode: ['granted', 'discord', 'both'][seed % 3] },
      });
  }
}

/** Mostly turns being taken, with everything else mixed in. */
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Step>('speak') },
  { weight: 4, arbitrary: fc.constant<Step>('pass') },
  { weight: 4, arbitrary: fc.constant<Step>('human') },
  { weight: 6, arbitrary: fc.constantFrom(...STEPS) },
);

/** A random channel history: its commits (the events of one decision each). */
const historyArb = fc
  .record({
    kind: fc.constantFrom('chat', 'discussion'),
    steps: fc.array(fc.tuple(stepArb, fc.nat()), { maxLength: 300, size: 'large' }),
  })
  .map(({ kind, steps }) => {
    const w = new ChannelWorld({ ...DEFAULT_TURN_CONFIG, maxCyclesWithoutHuman: 2 });
    const commits: ChannelEvent[][] = [];
    const apply = (c: ChannelCommand | null) => {
      if (!c) return;
      const out = w.run(c);
      if (out.events.length) commits.push(out.events);
    };
    const agents = [ALICE, BOB, CAROL];
    apply(
      kind === 'chat'
        ? { type: 'CreateChannel', data: { guildId: GUILD, mode: 'chat', agents } }
        : {
            type: 'CreateDiscussion',
            data: {
              guildId: GUILD,
              agents,
              initiatorAgentId: ALICE.agentId,
              initiatorDiscordUserId: ALICE.discordUserId,
              callbackGuildId: '501',
              callbackChannelId: '601',
              guide: 'guide',
              participants: agents.map((a) => a.discordUserId),
            },
          },
    );
    steps.forEach(([step, seed], n) => {
      if (step !== 'speak') return apply(command(w, step, n, seed));
      apply(command(w, 'complete', n, seed));
      apply(command(w, 'deliver', n + 1, seed));
    });
    return commits;
  });

const fold = (state: ChannelState, commits: readonly ChannelEvent[][]) =>
  commits.reduce((s, events) => events.reduce(evolveChannel, s), state);

describe('channel snapshots', () => {
  it('fold(snapshot) + the commits after it equals the fold of the whole history', () => {
    fc.assert(
      fc.property(historyArb, fc.nat(), (commits, cut) => {
        const at = commits.length ? cut % (commits.length + 1) : 0;
        const all = fold(initialChannelState(CHANNEL), commits);
        // The snapshot as stored and read back: JSON, like the KV value.
        const stored = JSON.parse(
          JSON.stringify(fold(initialChannelState(CHANNEL), commits.slice(0, at))),
        );
        expect(isChannelState(stored, CHANNEL)).toBe(true);
        const resumed = fold(stored as ChannelState, commits.slice(at));
        expect(resumed).toEqual(all);
        // Nothing is lost in JSON either (no undefined, Map or Date in the state).
        expect(JSON.parse(JSON.stringify(resumed))).toStrictEqual(resumed);
        expect(replayChannel(CHANNEL, commits.flat())).toEqual(all);
      }),
      { numRuns: 300 },
    );
  });

  it('draws histories with many turns, discussions and multi-message runs', () => {
    const states = fc
      .sample(historyArb, { numRuns: 100, seed: 11 })
      .map((commits) => fold(initialChannelState(CHANNEL), commits));
    expect(Math.max(...states.map((s) => s.turnSeq))).toBeGreaterThan(20);
    expect(states.some((s) => s.discussion !== null && s.turnSeq > 5)).toBe(true);
    expect(states.some((s) => s.dormant)).toBe(true);
  });

  it('a state of another channel or missing a field is not taken for a snapshot', () => {
    const state = initialChannelState(CHANNEL);
    expect(isChannelState(state, CHANNEL)).toBe(true);
    expect(isChannelState(state, '601')).toBe(false);
    const { typingHold: _omitted, ...partial } = state;
    expect(isChannelState(partial, CHANNEL)).toBe(false);
    expect(isChannelState(null, CHANNEL)).toBe(false);
    expect(Object.keys(state).sort()).toEqual([...CHANNEL_STATE_KEYS].sort());
  });

  /**
   * A stored snapshot is folded by the `evolve` of its time. When evolve.ts, the state's
   * types, the events or the rules evolve uses change, this fingerprint changes: if what
   * evolve folds or the state's shape changed, bump CHANNEL_STATE_SCHEMA (snapshots of the
   * old schema are then ignored and channels replayed once); then update both figures here.
   */
  it('the schema is bumped when evolve or the state changes', () => {
    const files = ['evolve.ts', 'types.ts', 'events.ts', 'rules.ts'];
    const hash = createHash('sha256');
    for (const f of files) {
      const source = readFileSync(join(__dirname, f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
        .replace(/\s+/g, '');
      hash.update(source);
    }
    expect({ schema: CHANNEL_STATE_SCHEMA, fingerprint: hash.digest('hex').slice(0, 16) }).toEqual({
      schema: 1,
      fingerprint: '745f3d0f25fceb13',
    });
  });
});
