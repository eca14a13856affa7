import type { ChannelEvent } from '@dirigent/turn-domain';
import { buildTimeline, type TimelineCommit } from './timeline';
import { renderTimelineSvg } from './timeline-svg';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();
const commit = (s: number, ...events: unknown[]): TimelineCommit => ({
  at: at(s),
  events: events as ChannelEvent[],
});

const granted = (agentId: string, turnId: string) => ({
  type: 'TurnGranted',
  data: {
    turnId,
    agentId,
    discordUserId: '1',
    cycle: 1,
    position: 0,
    reason: 'wake',
    anchorMessageId: null,
  },
});

describe('turn timeline', () => {
  const commits = [
    commit(0, {
      type: 'ModeSet',
      data: { guildId: '1', from: 'none', to: 'chat', tmState: 'normal' },
    }),
    commit(1, { type: 'WentDormant', data: { reason: 'start', cycle: 0, cyclesWithoutHuman: 0 } }),
    commit(
      2,
      { type: 'MessageSeen', data: {} },
      { type: 'Woke', data: { byMessageId: '9', authorKind: 'human' } },
      granted('ada', 't1'),
    ),
    commit(3, {
      type: 'TurnCompleted',
      data: { turnId: 't1', agentId: 'ada', runId: 'r', outcome: 'real', tailFingerprint: 'x' },
    }),
    commit(
      5,
      { type: 'DeliveryConfirmed', data: { turnId: 't1', agentId: 'ada', messageId: '10' } },
      granted('bo', 't2'),
    ),
    commit(6, {
      type: 'TurnCompleted',
      data: { turnId: 't2', agentId: 'bo', runId: 'r2', outcome: 'real', tailFingerprint: 'y' },
    }),
    commit(21, {
      type: 'DeliveryTimedOut',
      data: { turnId: 't2', agentId: 'bo', timeoutMs: 15000 },
    }),
    commit(22, {
      type: 'WentDormant',
      data: { reason: 'loop-breaker', cycle: 3, cyclesWithoutHuman: 3 },
    }),
  ];

  it('keeps grants, outcomes, delivery delay, timeouts, dormancy, wakes and loop-breaker trips in order', () => {
    expect(buildTimeline(commits).map((i) => i.kind)).toEqual([
      'mode',
      'dormant',
      'woke',
      'granted',
      'completed',
      'delivered',
      'granted',
      'completed',
      'timeout',
      'loop-breaker',
    ]);
    const delivered = buildTimeline(commits).find((i) => i.kind === 'delivered');
    expect(delivered).toMatchObject({ agentId: 'ada', afterMs: 2000 });
  });

  it('keeps only the newest items', () => {
    expect(buildTimeline(commits, 2).map((i) => i.kind)).toEqual(['timeout', 'loop-breaker']);
  });

  it('draws one lane per agent with a mark per item, names and text escaped', () => {
    const svg = renderTimelineSvg(
      buildTimeline(commits),
      '#<chat>',
      new Map([['ada', 'Ada & co']]),
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Ada &amp; co');
    expect(svg).toContain('>bo<');
    expect(svg).toContain('#&lt;chat&gt;');
    expect(svg.match(/class="tl-granted"/g)).toHaveLength(2);
    expect(svg).toContain('tl-completed tl-real');
    expect(svg).toContain('reply delivered after 2000 ms');
    expect(svg).toContain('tl-loop-breaker');
    expect(renderTimelineSvg([], '#empty')).toContain('no turns yet');
  });
});
