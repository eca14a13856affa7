import { Subjects } from '@dirigent/contracts';
import {
  CANONICAL_DISPOSITIONS,
  chooseLens,
  OFF_AXIS_CHANCE,
  RECALL_LENSES,
  seededRandom,
} from '@dirigent/router-domain';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness, type TestGuild } from '../../memory/test/harness';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit }
speculative: { enabled: false }
followups: { enabled: false }
`;

/** A message id whose turn seed (`<id>:dit`) does, or does not, draw the off-axis lens swap. */
function messageIdWith(offAxis: boolean, also: (seed: string) => boolean = () => true): string {
  for (;;) {
    const id = snowflake();
    const drawn = seededRandom(`${id}:dit`, 'lens')() < OFF_AXIS_CHANCE;
    if (drawn === offAxis && also(`${id}:dit`)) return id;
  }
}

/**
 * "Dit, do you remember what we decided about …" against the real memory service: what the
 * question asks about was said an hour ago, before more talk than the live window holds.
 * Whatever lens the turn reads through (the disposition's own, or the seeded off-axis swap),
 * the synthesizer's prompt carries that message.
 */
describe('router: a memory question reads what it asks about (real memory service)', () => {
  let h: MemoryHarness;
  let s: RouterStack;
  let guild: TestGuild;
  const channelId = snowflake();
  const ada = snowflake();
  const bo = snowflake();
  const decided = 'ok so we decided: the summer party venue is the old lighthouse';
  const question = 'Dit, do you remember what we decided about the summer party venue?';

  beforeAll(async () => {
    h = await MemoryHarness.start({ DIRIGENT_LIVE_WINDOW: '10' });
    guild = h.guild();
    await guild.say(channelId, ada, decided, { authorName: 'ada' });
    for (let i = 0; i < 14; i++)
      await guild.say(channelId, i % 2 ? ada : bo, `random chatter number ${i} about the weather`, {
        authorName: i % 2 ? 'ada' : 'bo',
      });
    await h.waitForCount(guild.guildId, ada, 8);
    await h.waitForCount(guild.guildId, bo, 7);
    s = await startRouterStack(YAML);
  });
  afterAll(async () => {
    await s?.close();
    await h?.stop();
  });

  async function only(id: string) {
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await s.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === id ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  }

  /** Asks the question as `messageId`; its decision and the synthesizer's prompt. */
  async function ask(messageId: string) {
    const before = s.upstream.seen.length;
    await s.discord.human(guild.guildId, channelId, question, { authorId: bo, messageId });
    const d = await waitFor(() =>
      s.decisions(channelId).find((x) => x.inboundMessageId === messageId),
    );
    const synth = await waitFor(() =>
      s.upstream.seen
        .slice(before)
        .map((x) => x.body.messages as { role: string; content: string }[])
        .find(
          (m) => m[0].content.startsWith('You are Dit') && m.at(-1)!.content.includes(question),
        ),
    );
    return { d, prompt: synth.find((m) => m.role === 'user')!.content };
  }

  it('an off-axis swap on a memory question goes to a recall lens, seeded and recorded', async () => {
    await only('callback-from-memory');
    const own = CANONICAL_DISPOSITIONS.find((x) => x.id === 'callback-from-memory')!;
    // A seed that, without the question, would have swapped to the time-shifted lens.
    const id = messageIdWith(
      true,
      (seed) => chooseLens(own, { seed, temperature: 0.7 }).lens === 'time-shifted',
    );
    const { d, prompt } = await ask(id);
    expect(d.chosen).toBe('callback-from-memory');
    expect(d.inputs?.message?.recall).toBe(true);
    expect(d.lensSwap).toMatchObject({ from: 'callback-primed', reason: 'off-axis' });
    expect(RECALL_LENSES).toContain(d.lensSwap!.to);
    expect(d.dimensions.contextStrategy).toBe(d.lensSwap!.to);
    expect(prompt).toContain(decided);
  });

  it('a lens that does not search the archive gets what memory holds on the question', async () => {
    await only('quick-react');
    const { d, prompt } = await ask(messageIdWith(false));
    expect(d.chosen).toBe('quick-react');
    expect(d.lensSwap).toBeUndefined();
    expect(d.dimensions.contextStrategy).toBe('live');
    // The live window (10) no longer holds it: the recall lens' archive search does.
    expect(prompt).toMatch(/## From the archive\n(.*\n)*.*ada: ok so we decided: the summer party/);
  });
});
