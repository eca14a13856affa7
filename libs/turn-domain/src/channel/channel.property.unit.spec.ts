import fc from 'fast-check';
import type { ChannelCommand } from './commands';
import type { ChannelEvent } from './events';
import { replayChannel } from './evolve';
import { evaluateCheckTurn } from './queries';
import { isRotating } from './rules';
import type { ChannelState } from './types';
import { DEFAULT_TURN_CONFIG } from './types';
import {
  agent,
  ALICE,
  BOB,
  CAROL,
  ChannelWorld,
  DAVE,
  ERIN,
  GUILD,
  HUMAN,
  MODERATOR,
  OTHER_BOT,
} from '../../testing/channel-world';

const POOL = [ALICE, BOB, CAROL, DAVE, ERIN];
const pick = (mask: number) => POOL.filter((_, i) => (mask >> i) & 1);

type Step =
  | { k: 'human'; text: 'plain' | 'start' | 'end' }
  | { k: 'moderator' }
  | { k: 'bot' }
  | { k: 'agentPost'; who: number }
  | { k: 'complete'; empty: boolean; reuseRun: boolean }
  | { k: 'completeOther'; who: number }
  | { k: 'deliver'; match: boolean }
  | { k: 'timeout'; stale: boolean }
  | { k: 'confirm' }
  | { k: 'refresh'; mask: number }
  | { k: 'shuffle'; value: boolean | null }
  | { k: 'check'; who: number }
  | { k: 'setMode'; mode: 'chat' | 'none' | 'report' }
  | { k: 'completeDiscussion'; byInitiator: boolean }
  | { k: 'speakerTimeout'; stale: boolean }
  | { k: 'advance' };

const who = fc.integer({ min: 0, max: POOL.length - 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('human' as const),
      text: fc.constantFrom('plain' as const, 'plain' as const, 'start' as const, 'end' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('moderator' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('bot' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('agentPost' as const), who }) },
  {
    weight: 10,
    arbitrary: fc.record({
      k: fc.constant('complete' as const),
      empty: fc.boolean(),
      reuseRun: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('completeOther' as const), who }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('deliver' as const), match: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('timeout' as const), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('confirm' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('speakerTimeout' as const), stale: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('advance' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('refresh' as const),
      mask: fc.integer({ min: 0, max: 31 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('shuffle' as const),
      value: fc.constantFrom(true, false, null),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('check' as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('setMode' as const),
      mode: fc.constantFrom('chat' as const, 'none' as const, 'report' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('completeDiscussion' as const),
      byInitiator: fc.boolean(),
    }),
  },
);

const scenarioArb = fc.record({
  kind: fc.constantFrom('chat' as const, 'discussion' as const),
  mask: fc.integer({ min: 0, max: 31 }),
  shuffle: fc.constantFrom(true, false, null),
  maxCyclesWithoutHuman: fc.constantFrom(0, 1, 3),
  tailFingerprintLen: fc.constantFrom(4, 40),
  steps: fc.array(fc.tuple(stepArb, fc.option(fc.nat(), { nil: undefined })), { maxLength: 150 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

interface Batch {
  readonly before: ChannelState;
  readonly events: readonly ChannelEvent[];
  readonly after: ChannelState;
}

function toCommand(
  step: Step,
  w: ChannelWorld,
  runs: string[],
  seed: number | undefined,
): ChannelCommand | null {
  const s = w.state;
  const turn = s.currentTurn;
  const withSeed = <C extends ChannelCommand>(c: C): C => (seed === undefined ? c : { ...c, seed });
  switch (step.k) {
    case 'human': {
      const text = { plain: 'hello there', start: '↗️ a long one', end: 'that is all ↙️' }[
        step.text
      ];
      return withSeed(w.message(HUMAN, text));
    }
    case 'moderator':
      return w.message(MODERATOR, '➡️', { bot: true, moderator: true });
    case 'bot':
      return withSeed(w.message(OTHER_BOT, 'beep', { bot: true }));
    case 'agentPost':
      return withSeed(
        w.message(POOL[step.who].discordUserId, 'via tool', {
          bot: true,
          agentId: POOL[step.who].agentId,
        }),
      );
    case 'complete': {
      const agentId = turn?.agentId ?? ALICE.agentId;
      const runId = step.reuseRun && runs.length > 0 ? runs[runs.length - 1] : `run-${runs.length}`;
      runs.push(runId);
      const text = step.empty ? 'NO_REPLY' : `reply for ${turn?.turnId ?? 'none'}`;
      return withSeed({ type: 'CompleteTurn', data: { agentId, runId, text } });
    }
    case 'completeOther':
      runs.push(`other-${runs.length}`);
      return withSeed({
        type: 'CompleteTurn',
        data: { agentId: POOL[step.who].agentId, runId: `other-${runs.length}`, text: 'hi' },
      });
    case 'deliver': {
      if (!turn) return null;
      const content = step.match ? `reply for ${turn.turnId}` : 'first fragment';
      return withSeed(w.message(turn.discordUserId, content, { bot: true, agentId: turn.agentId }));
    }
    case 'timeout':
      return withSeed({
        type: 'DeliveryTimeout',
        data: { turnId: step.stale || !turn ? 'stale:0' : turn.turnId },
      });
    case 'confirm':
      return turn
        ? withSeed({
            type: 'ConfirmDelivery',
            data: { turnId: turn.turnId, messageId: w.newMessageId() },
          })
        : null;
    case 'refresh':
      return withSeed({ type: 'RefreshMembers', data: { agents: pick(step.mask) } });
    case 'shuffle':
      return withSeed({ type: 'SetShuffle', data: { shuffle: step.value } });
    case 'check':
      return { type: 'CheckTurn', data: { agentId: POOL[step.who].agentId } };
    case 'setMode':
      return withSeed({
        type: 'SetMode',
        data: { guildId: GUILD, mode: step.mode, agents: [...s.members] },
      });
    case 'speakerTimeout':
      return withSeed({
        type: 'SpeakerTimeout',
        data: { turnId: step.stale || !turn ? 'stale:0' : turn.turnId },
      });
    case 'advance':
      return withSeed({ type: 'AdvanceTurn', data: { requestedBy: 'ops' } });
    case 'completeDiscussion':
      return {
        type: 'CompleteDiscussion',
        data: {
          callerAgentId: step.byInitiator ? (s.discussion?.initiatorAgentId ?? 'x') : 'intruder',
          summaryPath: 'discussion-summary/s.md',
        },
      };
  }
}

function run(sc: Scenario): { world: ChannelWorld; batches: Batch[] } {
  const world = new ChannelWorld({
    ...DEFAULT_TURN_CONFIG,
    maxCyclesWithoutHuman: sc.maxCyclesWithoutHuman,
    tailFingerprintLen: sc.tailFingerprintLen,
  });
  const batches: Batch[] = [];
  const apply = (cmd: ChannelCommand) => {
    const before = world.state;
    const out = world.run(cmd);
    batches.push({ before, events: out.events, after: out.state });
  };
  apply({ type: 'SetShuffle', data: { shuffle: sc.shuffle } });
  const agents = pick(sc.mask);
  if (sc.kind === 'chat') {
    apply({ type: 'CreateChannel', data: { guildId: GUILD, mode: 'chat', agents } });
  } else {
    apply({
      type: 'CreateDiscussion',
      data: {
        guildId: GUILD,
        agents,
        initiatorAgentId: (agents[0] ?? agent('nobody', '1')).agentId,
        callbackGuildId: '501',
        callbackChannelId: '601',
        guide: 'guide',
        participants: agents.map((a) => a.discordUserId),
      },
    });
  }
  const runs: string[] = [];
  for (const [step, seed] of sc.steps) {
    const cmd = toCommand(step, world, runs, seed);
    if (cmd) apply(cmd);
  }
  return { world, batches };
}

/** Independent bookkeeping over the event stream, checked against each rule. */
function checkInvariants(sc: Scenario, batches: Batch[]): void {
  let openTurn: string | null = null;
  let cycle = 0;
  let outcomes: string[] = [];
  let grantedThisCycle: string[] = [];
  let membersChangedThisCycle = false;
  // Members refreshed since the speaker list was last built: the list a cycle walks is only
  // rebuilt at a cycle's end, so a cycle a wake opens walks the list as it stood (the
  // departed passed over, the new not in it yet).
  let listBehindMembers = false;
  let lastCompleted: string | null = null;
  let lastRebuildShuffled = false;
  let lastRebuildAdded: string[] = [];
  let humanInCycle = false;
  let consecutive = 0;
  let speakers: string[] = [];

  for (const { before, events, after } of batches) {
    const startsFrom = (types: string[]) => events.some((e) => types.includes(e.type));
    for (const e of events) {
      switch (e.type) {
        case 'TurnGranted': {
          // at most one current speaker: a grant never overlaps an open turn
          expect(openTurn).toBeNull();
          openTurn = e.data.turnId;
          if (e.data.cycle !== cycle) {
            expect(e.data.cycle).toBe(cycle + 1);
            if (
              lastRebuildShuffled &&
              speakers.length > 1 &&
              speakers.includes(lastCompleted ?? '') &&
              !startsFrom(['DeliveryWaitCancelled'])
            ) {
              // shuffle: the previous cycle's last speaker never opens the next one (a wait
              // interrupted mid-cycle wakes the list as it stands: its first agent opens)
              expect(e.data.agentId).not.toBe(lastCompleted);
            }
            cycle = e.data.cycle;
            outcomes = [];
            grantedThisCycle = [];
            membersChangedThisCycle = false;
            humanInCycle = false;
          }
          expect(grantedThisCycle).not.toContain(e.data.agentId);
          expect(speakers[e.data.position]).toBe(e.data.agentId);
          grantedThisCycle.push(e.data.agentId);
          break;
        }
        case 'TurnCompleted':
          expect(e.data.turnId).toBe(openTurn);
          outcomes.push(e.data.outcome);
          lastCompleted = e.data.agentId;
          if (e.data.outcome === 'empty') openTurn = null;
          break;
        case 'DeliveryConfirmed':
        case 'DeliveryTimedOut':
        case 'DeliveryWaitCancelled':
        case 'TurnSkipped':
        case 'TurnCancelled':
          expect(e.data.turnId).toBe(openTurn);
          openTurn = null;
          break;
        case 'MembersRefreshed':
          membersChangedThisCycle = true;
          listBehindMembers = true;
          break;
        case 'SpeakerListRebuilt': {
          const ids = e.data.speakers.map((s) => s.agentId);
          // each rebuilt list is a permutation of the current agent members
          expect([...ids].sort()).toEqual(
            [...new Set((batchMembers(before, events, e) ?? []).map((m) => m.agentId))].sort(),
          );
          if (e.data.shuffled && ids.length > 1 && e.data.avoidFirst !== null) {
            expect(ids[0]).not.toBe(e.data.avoidFirst);
          }
          if (e.data.shuffled) expect(e.data.avoidFirst).toBe(lastCompleted);
          speakers = ids;
          listBehindMembers = false;
          lastRebuildShuffled = e.data.shuffled;
          lastRebuildAdded = e.data.added;
          break;
        }
        case 'CycleCompleted': {
          expect(openTurn).toBeNull();
          expect(e.data.outcomes.map((o) => o.outcome)).toEqual(outcomes);
          expect(e.data.unanimousEmpty).toBe(outcomes.every((o) => o === 'empty'));
          if (!membersChangedThisCycle && !listBehindMembers) {
            // a full cycle over the members as they are grants every speaker once, in order
            expect(grantedThisCycle).toEqual(speakers);
          }
          consecutive = humanInCycle ? 0 : consecutive + 1;
          expect(e.data.cyclesWithoutHuman).toBe(consecutive);
          break;
        }
        case 'WentDormant':
          expect(openTurn).toBeNull();
          if (e.data.reason === 'unanimous-empty') {
            expect(outcomes.every((o) => o === 'empty')).toBe(true);
            expect(lastRebuildAdded).toEqual([]);
          } else if (e.data.reason === 'loop-breaker') {
            expect(after.mode).toBe('chat');
            expect(sc.maxCyclesWithoutHuman).toBeGreaterThan(0);
            expect(consecutive).toBeGreaterThanOrEqual(sc.maxCyclesWithoutHuman);
            expect(outcomes.every((o) => o === 'empty') && lastRebuildAdded.length === 0).toBe(
              false,
            );
          } else {
            expect(startsFrom(['ChannelCreated', 'ModeSet']) || !isRotating(before.tmState)).toBe(
              true,
            );
          }
          outcomes = [];
          break;
        case 'MessageSeen':
          if (e.data.authorKind === 'human') {
            humanInCycle = true;
            consecutive = 0;
          }
          break;
        case 'ModeSet':
          openTurn = null;
          outcomes = [];
          consecutive = 0;
          humanInCycle = false;
          if (e.data.to !== 'chat') speakers = [];
          break;
        case 'DiscussionArchived':
          expect(openTurn).toBeNull();
          break;
        default:
          break;
      }
    }
    // a unanimous empty cycle without newcomers, and without a person speaking during it,
    // always ends dormant; with a person speaking during it, it goes round again
    const completed = events.find((e) => e.type === 'CycleCompleted');
    if (completed?.type === 'CycleCompleted' && isRotating(after.tmState)) {
      const dormant = events.find((e) => e.type === 'WentDormant');
      const { unanimousEmpty, newAgents, humanSeen } = completed.data;
      if (unanimousEmpty && newAgents.length === 0) {
        if (!humanSeen) expect(dormant?.data).toMatchObject({ reason: 'unanimous-empty' });
        else expect(dormant?.data.reason).not.toBe('unanimous-empty');
      }
    }
    // state-level: the single current speaker, only in a live rotation
    const turn = after.currentTurn;
    expect(turn?.turnId ?? null).toBe(openTurn);
    if (turn) {
      expect(isRotating(after.tmState)).toBe(true);
      expect(after.dormant).toBe(false);
      expect(after.multiMessage).toBe(false);
      expect(after.speakers[turn.position]?.agentId).toBe(turn.agentId);
    }
    if (after.dormant) expect(isRotating(after.tmState)).toBe(true);
    // check-turn lets at most one agent through while a rotation is live
    if (isRotating(after.tmState) || after.tmState === 'archived' || after.tmState === 'dead') {
      const allowed = POOL.filter((a) => evaluateCheckTurn(after, a.agentId).allowed);
      expect(allowed.length).toBeLessThanOrEqual(1);
    }
  }
}

/** Members in force when `target` was emitted (the latest MembersRefreshed before it). */
function batchMembers(before: ChannelState, events: readonly ChannelEvent[], target: ChannelEvent) {
  let members = before.members;
  for (const e of events) {
    if (e === target) break;
    if (e.type === 'MembersRefreshed') members = e.data.members;
  }
  return members;
}

/**
 * Found by a CI run: members refreshed mid-discussion, then a human's message cut a delivery
 * wait and woke a cycle over the list as it stood (built before the refresh).
 */
const WOKEN_OVER_A_STALE_LIST = {
  kind: 'discussion',
  mask: 15,
  shuffle: true,
  maxCyclesWithoutHuman: 0,
  tailFingerprintLen: 4,
  steps: [
    [{ k: 'refresh', mask: 17 }, undefined],
    [{ k: 'complete', empty: false, reuseRun: false }, undefined],
    [{ k: 'human', text: 'plain' }, undefined],
    [{ k: 'complete', empty: true, reuseRun: false }, undefined],
  ],
} as unknown as Scenario;

describe('channel decider properties', () => {
  it('keeps every turn rule over random command sequences', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { batches } = run(sc);
        checkInvariants(sc, batches);
      }),
      { numRuns: 300, examples: [[WOKEN_OVER_A_STALE_LIST]] },
    );
  });

  it('replaying the stored (JSON) events yields the same state', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { world } = run(sc);
        const stored = JSON.parse(JSON.stringify(world.log)) as ChannelEvent[];
        expect(stored).toStrictEqual(world.log);
        expect(replayChannel(world.state.channelId, stored)).toEqual(world.state);
        expect(JSON.parse(JSON.stringify(world.state))).toStrictEqual(world.state);
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic: the same commands give the same events', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        expect(run(sc).world.log).toEqual(run(sc).world.log);
      }),
      { numRuns: 100 },
    );
  });

  it('actually exercises dormancy, the loop breaker, shuffles and delivery', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        for (const e of run(sc).world.log) {
          seen.add(e.type === 'WentDormant' ? `WentDormant:${e.data.reason}` : e.type);
          if (e.type === 'SpeakerListRebuilt' && e.data.shuffled) seen.add('shuffled');
        }
      }),
      { numRuns: 600, seed: 42 },
    );
    for (const t of [
      'WentDormant:unanimous-empty',
      'WentDormant:loop-breaker',
      'WentDormant:start',
      'shuffled',
      'DeliveryConfirmed',
      'DeliveryTimedOut',
      'DeliveryWaitCancelled',
      'TurnSkipped',
      'MultiMessageEnded',
      'DiscussionArchived',
      'CycleCompleted',
    ]) {
      expect(seen).toContain(t);
    }
  });
});
