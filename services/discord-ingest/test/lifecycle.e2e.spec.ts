import { Subjects } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import {
  closeMessaging,
  snowflake,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  waitFor,
} from '@dirigent/testing';
import { DiscordIngestService } from '../discord-ingest.module';
import { DiscordConnection } from '../adapters/discord-connection';
import { discordEvents, newChannel, startHarness, type Harness } from './harness';

describe('discord-ingest lifecycle', () => {
  it('starts without DISCORD_TOKEN, stays healthy and says it has no Discord', async () => {
    const { app, port } = await startServiceApp(DiscordIngestService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'silent',
      DISCORD_INGEST_PORT: '0',
    });
    const nats = await testMessaging('discord-ingest-lifecycle');
    try {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(app.get(DiscordConnection).client).toBeNull();
      const unavailable = { ok: false, error: { code: 'UNAVAILABLE' } };
      expect(
        await nats.request(Subjects.discord.queryChannelMembers, { guildId: '1', channelId: '2' }),
      ).toMatchObject(unavailable);
      expect(await nats.request(Subjects.discord.querySelf, {})).toMatchObject(unavailable);
    } finally {
      await closeMessaging(nats);
      await app.close();
    }
  });

  describe('restart', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => {
      await h?.stop();
    });

    it('catches up on messages posted while it was down and delivers queued commands', async () => {
      const channel = newChannel(h);
      const say = (content: string) =>
        h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content });
      say('before');
      // Messages only: on connecting the ingest also reports each channel's audience.
      const messages = async () =>
        (await discordEvents(h.nats, h.guild.id, channel.id)).filter(
          (e) => e.type === 'message.created',
        );
      await waitFor(async () => (await messages()).length === 1);
      const commandIds = [...h.discord.commands.keys()].sort();
      await h.stopApp();
      say('while down 1');
      say('while down 2');
      await h.nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
        guildId: h.guild.id,
        channelId: channel.id,
        content: 'queued while down',
        purpose: 'notice',
      });
      await h.startApp();
      const evts = await waitFor(
        async () => {
          const all = await messages();
          return all.length >= 4 ? all : null;
        },
        15_000,
        100,
      );
      await new Promise((r) => setTimeout(r, 300));
      const all = await messages();
      expect(all.map((e) => e.data.content)).toEqual([
        'before',
        'while down 1',
        'while down 2',
        'queued while down',
      ]);
      expect(evts.length).toBe(4);
      expect(h.discord.channelMessages(channel.id).map((m) => m.content)).toContain(
        'queued while down',
      );
      // Slash commands were registered again by bulk overwrite: same commands, same ids.
      expect([...h.discord.commands.keys()].sort()).toEqual(commandIds);
      expect(commandIds).toHaveLength(2);
    });
  });

  describe('with DIRIGENT_MODERATOR_USER_ID', () => {
    let h: Harness;
    afterAll(async () => {
      await h?.stop();
    });

    it('opens private channels to the configured moderator', async () => {
      const moderatorId = snowflake();
      h = await startHarness({ DIRIGENT_MODERATOR_USER_ID: moderatorId });
      const reply = await h.nats.request<{ channelId: string }>(Subjects.discord.rpcCreateChannel, {
        guildId: h.guild.id,
        name: 'with-moderator',
        private: true,
        memberIds: [h.bob.id],
      });
      if (!reply.ok) throw new Error(`create-channel: ${JSON.stringify(reply.error)}`);
      const { channelId } = reply.data;
      const created = h.discord.channels.get(channelId)!;
      expect(created.overwrites.map((o) => o.id).sort()).toEqual(
        [h.guild.id, h.discord.bot.id, moderatorId, h.bob.id].sort(),
      );
      expect(h.discord.canView(channelId, h.bob.id)).toBe(true);
      expect(h.discord.canView(channelId, h.otherBot.id)).toBe(false);
    });
  });
});
