import { Subjects, subject, type RouterDecision } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import type { RouterStack } from '../../test/harness';

/**
 * Dit alone, learning at 0.1 a step within [0.5, 2]. Only `factual-recall` (deadpan,
 * single-line) may speak: a mention is answered, talk addressed to someone else is a quiet
 * turn (`silent-listen`).
 */
export const DIT_YAML = `
agents:
  - id: dit
    name: Dit
    voices: [deadpan]
    learning: { rate: 0.1, bounds: [0.5, 2] }
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * What the learning specs do to a running router stack: admin requests, the guild's
 * `learning.adjusted` steps, a mention answered in a fresh channel, a member's reaction, and
 * waiting until a durable consumer of the router handled everything it was sent.
 */
export function learningKit(stack: () => RouterStack) {
  const ok = async (subj: string, data: unknown) => {
    const r = await stack().request(subj, data);
    if (!r.ok) throw new Error(`${subj}: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  return {
    ok,
    steps: (guildId: string) =>
      stack()
        .events.filter((e) => e.subject === subject.learningAdjusted(guildId))
        .map((e) => e.data),
    learned: (guildId: string) => ok(Subjects.admin.learningGet, { guildId, agentId: 'dit' }),
    /** A mention answered in a fresh channel: the decision and the agent's delivered message. */
    turn: async (guildId: string) => {
      const s = stack();
      const channel = snowflake();
      await s.discord.human(guildId, channel, 'dit, what is the answer?');
      const d: RouterDecision = await waitFor(() => s.decisions(channel)[0], 30_000);
      const echo = await waitFor(
        () => s.discord.echoes.find((e) => e.channelId === channel),
        30_000,
      );
      return { d, channel, messageId: echo.messageId as string, content: echo.content };
    },
    react: (
      guildId: string,
      channel: string,
      messageId: string,
      userId: string,
      emoji: string,
      kind: 'reaction.added' | 'reaction.removed' = 'reaction.added',
      extra: Record<string, unknown> = {},
    ) =>
      stack().messaging.publishEvent(subject.discordEvent(guildId, channel, kind), kind, {
        guildId,
        channelId: channel,
        messageId,
        userId,
        emoji,
        ...extra,
      }),
    /** The router's durable consumer `durable` on `stream` has nothing pending or in hand. */
    idle: async (stream: string, durable: string) => {
      const c = await stack().messaging.client.jsm.consumers.info(stream, durable);
      if (c.num_pending || c.num_ack_pending)
        throw new Error(`${durable}: ${c.num_pending} pending, ${c.num_ack_pending} in hand`);
      return true;
    },
  };
}
