import { Subjects } from '@dirigent/contracts';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { snowflake, waitFor } from '@dirigent/testing';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit, bannedPhrases: ['as an AI'] }
speculative: { enabled: false }
followups: { enabled: false }
`;

describe('router (in process, with the real gateway and a fake upstream)', () => {
  let s: RouterStack;
  const guild = snowflake();

  beforeAll(async () => {
    s = await startRouterStack(YAML);
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Leaves only `ids` with a weight above 0. */
  async function only(...ids: string[]) {
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await s.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: ids.includes(d.id) ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  }

  describe('dirigent.router.decide (dry run)', () => {
    it('is deterministic for a seed and never silent on a mention', async () => {
      await only(...CANONICAL_DISPOSITIONS.map((d) => d.id));
      const body = {
        guildId: guild,
        channelId: snowflake(),
        content: 'what do you think, dit?',
        seed: 'fixed',
      };
      const a = await s.request(Subjects.router.decide, body);
      const b = await s.request(Subjects.router.decide, body);
      expect(a.ok).toBe(true);
      expect(b.data).toEqual(a.data);
      expect(a.data.seed).toBe('fixed');
      expect(a.data.candidates).toHaveLength(10);
      expect(a.data.dimensions.outputShape).not.toBe('silent');
      for (let i = 0; i < 20; i++) {
        const r = await s.request(Subjects.router.decide, { ...body, seed: `s${i}` });
        expect(r.data.chosen).not.toBe('silent-listen');
      }
    });

    it('chooses only speculative-only dispositions or silence for an unprompted turn', async () => {
      for (let i = 0; i < 20; i++) {
        const r = await s.request(Subjects.router.decide, {
          guildId: guild,
          channelId: snowflake(),
          unprompted: true,
          seed: `u${i}`,
        });
        expect(['late-night-musing', 'observation-drop', 'silent-listen']).toContain(r.data.chosen);
      }
    });

    it('refuses bad input with BAD_REQUEST and the field errors', async () => {
      const r = await s.request(Subjects.router.decide, {
        guildId: 'nope',
        channelId: snowflake(),
      });
      expect(r).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(r.error.details)).toContain('guildId');
      const unknown = await s.request(Subjects.router.decide, {
        guildId: guild,
        channelId: snowflake(),
        agentId: 'ghost',
      });
      expect(unknown).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    });
  });

  describe('dirigent.admin.disposition.*', () => {
    it('lists the ten canonical ones, upserts by merging, removes', async () => {
      const list = await s.request(Subjects.admin.dispositionList, {});
      expect(list.data.dispositions.map((d: any) => d.id).sort()).toEqual(
        CANONICAL_DISPOSITIONS.map((d) => d.id).sort(),
      );
      const merged = await s.request(Subjects.admin.dispositionUpsert, {
        id: 'roast-back',
        riskAppetite: 'safe',
      });
      expect(merged.data).toMatchObject({ id: 'roast-back', voice: 'sharp', riskAppetite: 'safe' });
      await s.request(Subjects.admin.dispositionUpsert, {
        id: 'roast-back',
        riskAppetite: 'spicy',
      });
      const incomplete = await s.request(Subjects.admin.dispositionUpsert, {
        id: 'brand-new',
        voice: 'playful',
      });
      expect(incomplete).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      const created = await s.request(Subjects.admin.dispositionUpsert, {
        id: 'brand-new',
        reasoningDepth: 'low',
        contextStrategy: 'live',
        voice: 'playful',
        outputShape: 'single-line',
        searchPosture: 'none',
        weight: 0,
      });
      expect(created.ok).toBe(true);
      expect((await s.request(Subjects.admin.dispositionRemove, { id: 'brand-new' })).ok).toBe(
        true,
      );
      expect(await s.request(Subjects.admin.dispositionRemove, { id: 'brand-new' })).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND' },
      });
      const bad = await s.request(Subjects.admin.dispositionUpsert, {
        id: 'x',
        voice: 'loud',
        weight: -1,
      });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(bad.error.details)).toContain('voice');
    });
  });

  describe('reactive turns', () => {
    it('silence sends nothing and calls no model', async () => {
      await only('silent-listen');
      const channel = snowflake();
      const hits = s.upstream.hits();
      const m = await s.discord.human(guild, channel, 'just chatting among ourselves');
      const [d] = await waitFor(() => (s.decisions(channel).length ? s.decisions(channel) : null));
      expect(d).toMatchObject({
        chosen: 'silent-listen',
        trigger: 'reactive',
        inboundMessageId: m.messageId,
        beats: [],
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(s.discord.commands.filter((c) => c.data.channelId === channel)).toEqual([]);
      expect(s.upstream.hits()).toBe(hits);
    });

    it('a mention gets one agent-reply as the agent, banned phrases removed, decision logged', async () => {
      await only('silent-listen', 'quick-react');
      s.upstream.behave = () => ({ kind: 'ok', text: 'As an AI, sure thing' });
      const channel = snowflake();
      await s.discord.human(guild, channel, 'dit, are you there?');
      const [send] = await waitFor(() =>
        s.discord.sent(channel).length ? s.discord.sent(channel) : null,
      );
      expect(send.data).toMatchObject({
        purpose: 'agent-reply',
        asAgentId: 'dit',
        content: ', sure thing',
      });
      const [d] = s.decisions(channel);
      expect(d).toMatchObject({
        chosen: 'quick-react',
        agentId: 'dit',
        beats: [{ text: ', sure thing' }],
        models: ['fake'],
      });
      const listed = await waitFor(async () => {
        const r = await s.request(Subjects.router.decisionsList, {
          guildId: guild,
          channelId: channel,
        });
        return r.data.decisions.length ? r.data.decisions : null;
      });
      expect(listed[0]).toMatchObject({
        decisionId: d.decisionId,
        seed: d.seed,
        chosen: 'quick-react',
      });
      expect(s.upstream.seen.at(-1)!.body.model).toBe('fake-1');
    });

    it('a synthesizer that has nothing to add (NO_REPLY) sends nothing', async () => {
      await only('quick-react');
      s.upstream.behave = () => ({ kind: 'ok', text: 'NO_REPLY' });
      const channel = snowflake();
      await s.discord.human(guild, channel, 'dit, anything?');
      const [d] = await waitFor(() => (s.decisions(channel).length ? s.decisions(channel) : null));
      expect(d).toMatchObject({ chosen: 'quick-react', beats: [], models: ['fake'] });
      await new Promise((r) => setTimeout(r, 300));
      expect(s.discord.sent(channel)).toEqual([]);
    });

    it('react-only adds one reaction and calls no model', async () => {
      await only('vibing');
      const channel = snowflake();
      const hits = s.upstream.hits();
      const m = await s.discord.human(guild, channel, 'lol');
      const [r] = await waitFor(() =>
        s.discord.of('add-reaction', channel).length ? s.discord.of('add-reaction', channel) : null,
      );
      expect(r.data).toMatchObject({ messageId: m.messageId });
      expect(s.decisions(channel)[0].reaction).toBe(r.data.emoji);
      expect(s.upstream.hits()).toBe(hits);
      expect(s.discord.sent(channel)).toEqual([]);
    });

    it('a burst sends beat after delivered beat with typing between; a human message withholds the rest', async () => {
      await only('settle-debate');
      s.upstream.behave = () => ({
        kind: 'ok',
        text: 'hmm\n\nok so the thing is\n\nwait, actually no',
      });
      const channel = snowflake();
      s.discord.hold();
      await s.discord.human(guild, channel, 'pineapple on pizza: yes or no? debate');
      await waitFor(() => s.discord.sent(channel).length === 1);
      const interrupter = await s.discord.human(guild, channel, 'hold on, I have a point');
      await new Promise((r) => setTimeout(r, 200));
      await s.discord.release();
      const child = await waitFor(() =>
        s.decisions(channel).find((d) => d.trigger === 'interruption'),
      );
      const parent = s.decisions(channel).find((d) => d.trigger === 'reactive')!;
      expect(parent.beats).toHaveLength(3);
      expect(child).toMatchObject({
        parentDecisionId: parent.decisionId,
        inboundMessageId: interrupter.messageId,
        interrupted: { atBeat: 1, action: 'continue' },
      });
      // "continue": the withheld beats go out now, paced by their deliveries.
      await waitFor(() => s.discord.sent(channel).length === 3);
      expect(s.discord.sent(channel).map((c) => c.data.content)).toEqual([
        'hmm',
        'ok so the thing is',
        'wait, actually no',
      ]);
      expect(s.discord.of('typing', channel).length).toBeGreaterThanOrEqual(1);
    });

    it('answers a burst in full when nobody interrupts, in at most three beats (the bots’ run)', async () => {
      await only('settle-debate');
      s.upstream.behave = () => ({ kind: 'ok', text: 'one\n\ntwo\n\nthree\n\nfour' });
      const channel = snowflake();
      await s.discord.human(guild, channel, 'settle this');
      await waitFor(() => s.discord.sent(channel).length === 3);
      const cmds = s.discord.commands
        .filter((c) => c.data.channelId === channel)
        .map((c) => c.subject.split('.').pop());
      expect(cmds).toEqual(['send-message', 'typing', 'send-message', 'typing', 'send-message']);
      // No bot-only run longer than MAX_BOT_RUN: the last beat carries the rest.
      expect(s.discord.sent(channel).map((c) => c.data.content)).toEqual([
        'one',
        'two',
        'three\n\nfour',
      ]);
    });
  });
});
