import { PermissionFlagsBits } from 'discord.js';
import { Streams, Subjects, type GuildJoined, type Reply } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from '../adapters/discord-connection';
import { newChannel, readStream, startHarness, type Harness } from './harness';

/**
 * The steward's Discord actions (contract part 3) through NATS, the ingest's real discord.js
 * client and the local Discord at the wire: each RPC's effect, its Discord errors (403 →
 * FORBIDDEN, 404 → NOT_FOUND, 5xx retried, 429 waited out) and its bad input.
 */
describe('discord-ingest actions (real discord.js against the local Discord)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const ask = <T = Record<string, unknown>>(subject: string, data: Record<string, unknown>) =>
    h.nats.request<T>(subject, { guildId: h.guild.id, ...data }, 15_000);
  const ok = async <T>(reply: Promise<Reply<T>>): Promise<T> => {
    const r = await reply;
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return r.data;
  };
  const client = () => h.app.get(DiscordConnection).client!;
  const botRole = () =>
    [...h.discord.guild(h.guild.id).roles.values()].find((r) => r.name === 'dirigent-bot')!;
  /** Runs `fn` while the bot holds only @everyone's permissions (an admin edits its role). */
  const powerless = async (fn: () => Promise<void>) => {
    const role = botRole();
    const before = role.permissions;
    h.discord.admin.updateRole(h.guild.id, role.id, { permissions: 0n });
    try {
      await fn();
    } finally {
      h.discord.admin.updateRole(h.guild.id, role.id, { permissions: before });
    }
  };
  const post = (channelId: string, content = 'a moment') =>
    h.discord.postMessage({ channelId, authorId: h.alice.id, content });

  describe('create-thread', () => {
    it('opens a thread on a message, and a standalone one, seen on the gateway', async () => {
      const channel = newChannel(h);
      const m = post(channel.id);
      const { threadId } = await ok(
        ask<{ threadId: string }>(Subjects.discord.rpcCreateThread, {
          channelId: channel.id,
          messageId: m.id,
          name: 'on the moment',
          autoArchiveMinutes: 60,
        }),
      );
      const thread = h.discord.channel(threadId);
      expect(thread).toMatchObject({ parentId: channel.id, name: 'on the moment', type: 11 });
      expect(thread.autoArchiveMinutes).toBe(60);
      expect(h.discord.message(channel.id, m.id).threadId).toBe(threadId);
      const standalone = await ok(
        ask<{ threadId: string }>(Subjects.discord.rpcCreateThread, {
          channelId: channel.id,
          name: 'side talk',
        }),
      );
      expect(h.discord.channel(standalone.threadId).parentId).toBe(channel.id);
      await waitFor(() => client().channels.cache.has(standalone.threadId), 15_000);
    });

    it('answers NOT_FOUND for an unknown message or channel, FORBIDDEN without permission', async () => {
      const channel = newChannel(h);
      const missing = await ask(Subjects.discord.rpcCreateThread, {
        channelId: channel.id,
        messageId: snowflake(),
        name: 'x',
      });
      expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      const noChannel = await ask(Subjects.discord.rpcCreateThread, {
        channelId: snowflake(),
        name: 'x',
      });
      expect(noChannel).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      // @everyone may open threads by default: the channel takes that away from it here.
      h.discord.admin.setOverwrite(channel.id, {
        id: h.guild.id,
        type: 0,
        allow: '0',
        deny: String(PermissionFlagsBits.CreatePublicThreads),
      });
      await powerless(async () => {
        const denied = await ask(Subjects.discord.rpcCreateThread, {
          channelId: channel.id,
          name: 'x',
        });
        expect(denied).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      });
    });

    it('refuses bad input naming the field', async () => {
      const bad = await ask(Subjects.discord.rpcCreateThread, {
        channelId: 'general',
        name: '',
        autoArchiveMinutes: 5,
      });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('channelId'));
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('name'));
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('autoArchiveMinutes'));
    });
  });

  describe('pin-message', () => {
    it('pins and unpins; the gateway tells discord.js', async () => {
      const channel = newChannel(h);
      const m = post(channel.id, 'pin me');
      const pins: string[] = [];
      const onPins = (c: { id: string }) => pins.push(c.id);
      client().on('channelPinsUpdate', onPins);
      try {
        expect(
          await ok(ask(Subjects.discord.rpcPinMessage, { channelId: channel.id, messageId: m.id })),
        ).toEqual({});
        expect(h.discord.admin.pinnedMessages(channel.id).map((x) => x.id)).toEqual([m.id]);
        await waitFor(() => pins.includes(channel.id), 15_000);
        await ok(
          ask(Subjects.discord.rpcPinMessage, {
            channelId: channel.id,
            messageId: m.id,
            unpin: true,
          }),
        );
        expect(h.discord.admin.pinnedMessages(channel.id)).toEqual([]);
      } finally {
        client().off('channelPinsUpdate', onPins);
      }
    });

    it('retries a 5xx and waits out a 429', async () => {
      const channel = newChannel(h);
      const m = post(channel.id);
      const path = `/channels/${channel.id}/messages/pins/${m.id}`;
      h.discord.failNext({ method: 'PUT', path, status: 502, times: 2 });
      await ok(ask(Subjects.discord.rpcPinMessage, { channelId: channel.id, messageId: m.id }));
      expect(h.discord.message(channel.id, m.id).pinned).toBe(true);
      h.discord.failNext({ method: 'DELETE', path, status: 429, retryAfter: 0.3 });
      await ok(
        ask(Subjects.discord.rpcPinMessage, {
          channelId: channel.id,
          messageId: m.id,
          unpin: true,
        }),
      );
      const deletes = h.discord.requests.filter((r) => r.method === 'DELETE' && r.path === path);
      expect(deletes.map((r) => r.status)).toEqual([429, 204]);
      expect(h.discord.message(channel.id, m.id).pinned).toBe(false);
    });

    it('answers NOT_FOUND, FORBIDDEN and BAD_REQUEST', async () => {
      const channel = newChannel(h);
      const m = post(channel.id);
      expect(
        await ask(Subjects.discord.rpcPinMessage, {
          channelId: channel.id,
          messageId: snowflake(),
        }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      h.discord.failNext({
        method: 'PUT',
        path: `/channels/${channel.id}/messages/pins/${m.id}`,
        status: 403,
        code: 50013,
      });
      expect(
        await ask(Subjects.discord.rpcPinMessage, { channelId: channel.id, messageId: m.id }),
      ).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      const bad = await ask(Subjects.discord.rpcPinMessage, { channelId: channel.id, unpin: 1 });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('messageId'));
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('unpin'));
    });
  });

  describe('create-role and assign-role', () => {
    it('creates a role once per name, assigns and removes it; permissions follow', async () => {
      const name = `regulars-${snowflake()}`;
      const first = await ok(
        ask<{ roleId: string }>(Subjects.discord.rpcCreateRole, {
          name,
          color: 0x3366ff,
          mentionable: true,
        }),
      );
      const again = await ok(ask<{ roleId: string }>(Subjects.discord.rpcCreateRole, { name }));
      expect(again.roleId).toBe(first.roleId);
      const roles = [...h.discord.guild(h.guild.id).roles.values()].filter((r) => r.name === name);
      expect(roles).toHaveLength(1);
      expect(roles[0]).toMatchObject({ color: 0x3366ff, mentionable: true });
      // The same name with another colour: still one role, brought to the colour.
      await ok(ask(Subjects.discord.rpcCreateRole, { name, color: 0x00ff00 }));
      expect(h.discord.admin.role(h.guild.id, first.roleId).color).toBe(0x00ff00);
      await waitFor(
        () =>
          client().guilds.cache.get(h.guild.id)?.roles.cache.get(first.roleId)?.colors
            .primaryColor === 0x00ff00,
        15_000,
      );

      await ok(ask(Subjects.discord.rpcAssignRole, { userId: h.bob.id, roleId: first.roleId }));
      expect(h.discord.guild(h.guild.id).members.get(h.bob.id)!.roleIds).toContain(first.roleId);
      // The role now grants Manage Server (as an admin would); bob's permissions follow it.
      h.discord.admin.updateRole(h.guild.id, first.roleId, {
        permissions: PermissionFlagsBits.ManageGuild,
      });
      const perms = async () =>
        (
          await ok(
            ask<{ permissions: string[] }>(Subjects.discord.queryMemberPermissions, {
              userId: h.bob.id,
            }),
          )
        ).permissions;
      await waitFor(async () => (await perms()).includes('ManageGuild'), 15_000);
      await ok(
        ask(Subjects.discord.rpcAssignRole, {
          userId: h.bob.id,
          roleId: first.roleId,
          remove: true,
        }),
      );
      expect(h.discord.guild(h.guild.id).members.get(h.bob.id)!.roleIds).not.toContain(
        first.roleId,
      );
      await waitFor(async () => !(await perms()).includes('ManageGuild'), 15_000);
    });

    it('answers NOT_FOUND, FORBIDDEN and BAD_REQUEST', async () => {
      expect(
        await ask(Subjects.discord.rpcAssignRole, { userId: h.bob.id, roleId: snowflake() }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      expect(
        await ask(Subjects.discord.rpcCreateRole, { guildId: snowflake(), name: 'x' }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      await powerless(async () => {
        expect(
          await ask(Subjects.discord.rpcCreateRole, { name: `denied-${snowflake()}` }),
        ).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      });
      const bad = await ask(Subjects.discord.rpcCreateRole, { name: 7, color: -1 });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('color'));
      const badAssign = await ask(Subjects.discord.rpcAssignRole, { userId: 'bob' });
      expect(badAssign).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(badAssign)).toEqual(expect.stringContaining('roleId'));
    });
  });

  describe('edit-channel', () => {
    it('renames a channel and moves it under a category, made once by name', async () => {
      const channel = newChannel(h);
      const renamed = await ok(
        ask<{ channelId: string; name: string; parentId: string | null }>(
          Subjects.discord.rpcEditChannel,
          { channelId: channel.id, name: `renamed-${channel.id}`, categoryName: 'Projects' },
        ),
      );
      expect(renamed).toMatchObject({ channelId: channel.id, name: `renamed-${channel.id}` });
      const parent = h.discord.channel(renamed.parentId!);
      expect(parent).toMatchObject({ type: 4, name: 'Projects', guildId: h.guild.id });
      // Asked again (a resumed step): the same category, nothing new.
      const again = await ok(
        ask<{ parentId: string | null }>(Subjects.discord.rpcEditChannel, {
          channelId: channel.id,
          categoryName: 'projects',
        }),
      );
      expect(again.parentId).toBe(parent.id);
      const categories = [...h.discord.channels.values()].filter(
        (c) => c.guildId === h.guild.id && c.type === 4 && c.name === 'Projects',
      );
      expect(categories).toHaveLength(1);
      const bad = await ask(Subjects.discord.rpcEditChannel, {
        channelId: channel.id,
        name: 'No Caps',
      });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(
        await ask(Subjects.discord.rpcEditChannel, { channelId: snowflake(), name: 'x' }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });
  });

  describe('set-channel-permissions and member-permissions', () => {
    it('sets overwrites by flag name; effective permissions in the channel follow', async () => {
      const channel = newChannel(h);
      const inChannel = async (userId: string) =>
        (
          await ok(
            ask<{ permissions: string[] }>(Subjects.discord.queryMemberPermissions, {
              userId,
              channelId: channel.id,
            }),
          )
        ).permissions;
      expect(await inChannel(h.bob.id)).toEqual(
        expect.arrayContaining(['ViewChannel', 'SendMessages']),
      );
      await ok(
        ask(Subjects.discord.rpcSetChannelPermissions, {
          channelId: channel.id,
          overwrites: [
            { id: h.guild.id, type: 'role', allow: [], deny: ['SendMessages'] },
            { id: h.alice.id, type: 'member', allow: ['SendMessages', 'ManageMessages'], deny: [] },
          ],
        }),
      );
      const stored = h.discord.channel(channel.id).overwrites;
      expect(stored.map((o) => [o.id, o.type])).toEqual([
        [h.guild.id, 0],
        [h.alice.id, 1],
      ]);
      await waitFor(async () => !(await inChannel(h.bob.id)).includes('SendMessages'), 15_000);
      expect(await inChannel(h.bob.id)).toContain('ViewChannel');
      expect(await inChannel(h.alice.id)).toEqual(
        expect.arrayContaining(['SendMessages', 'ManageMessages']),
      );
      // The bot is Administrator: every flag, anywhere.
      const bot = await inChannel(h.discord.bot.id);
      expect(bot).toEqual(expect.arrayContaining(['Administrator', 'ManageGuild', 'SendMessages']));
    });

    it("answers a member's display name and rank, and the guild's roles", async () => {
      const alice = await ok(
        ask<{ displayName: string; highestRolePosition: number; owner: boolean }>(
          Subjects.discord.queryMemberPermissions,
          { userId: h.alice.id },
        ),
      );
      const moderators = h.discord
        .guild(h.guild.id)
        .roles.get(h.discord.moderatorRoleId(h.guild.id))!;
      expect(alice).toMatchObject({
        displayName: 'alice',
        highestRolePosition: moderators.position,
        owner: false,
      });
      const { roles } = await ok(
        ask<{ roles: { name: string; position: number; permissions: string[] }[] }>(
          Subjects.discord.queryRoles,
          {},
        ),
      );
      expect(roles.find((r) => r.name === 'moderators')).toMatchObject({
        position: moderators.position,
        permissions: expect.arrayContaining(['ManageChannels', 'ManageMessages']),
        managed: false,
      });
      expect(roles.map((r) => r.position)).toEqual(
        [...roles.map((r) => r.position)].sort((a, b) => b - a),
      );
      const bad = await ask(Subjects.discord.queryRoles, { guildId: 'x' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    });

    it('answers NOT_FOUND, FORBIDDEN and BAD_REQUEST', async () => {
      const channel = newChannel(h);
      const overwrites = [{ id: h.bob.id, type: 'member', allow: ['ViewChannel'], deny: [] }];
      expect(
        await ask(Subjects.discord.rpcSetChannelPermissions, {
          channelId: snowflake(),
          overwrites,
        }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      await powerless(async () => {
        expect(
          await ask(Subjects.discord.rpcSetChannelPermissions, {
            channelId: channel.id,
            overwrites,
          }),
        ).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      });
      const bad = await ask(Subjects.discord.rpcSetChannelPermissions, {
        channelId: channel.id,
        overwrites: [{ id: h.bob.id, type: 'group', allow: ['Fly'], deny: [] }],
      });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('overwrites.0.type'));
      expect(JSON.stringify(bad)).toEqual(expect.stringContaining('overwrites.0.allow'));
      expect(
        await ask(Subjects.discord.queryMemberPermissions, { userId: snowflake() }),
      ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      const badQuery = await ask(Subjects.discord.queryMemberPermissions, { channelId: 'x' });
      expect(badQuery).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(JSON.stringify(badQuery)).toEqual(expect.stringContaining('userId'));
    });
  });

  describe('create-poll', () => {
    it('posts a native poll as the bot', async () => {
      const channel = newChannel(h);
      const { messageId } = await ok(
        ask<{ messageId: string }>(Subjects.discord.rpcCreatePoll, {
          channelId: channel.id,
          question: 'Pizza or pasta?',
          answers: ['pizza', 'pasta', 'both'],
          durationHours: 24,
          multiSelect: true,
        }),
      );
      const m = h.discord.message(channel.id, messageId);
      expect(m.authorId).toBe(h.discord.bot.id);
      expect(m.poll).toMatchObject({
        question: 'Pizza or pasta?',
        answers: ['pizza', 'pasta', 'both'],
        allowMultiselect: true,
      });
      const hours = (Date.parse(m.poll!.expiry) - Date.parse(m.createdAt)) / 3_600_000;
      expect(Math.round(hours)).toBe(24);
      const seen = await client().channels.fetch(channel.id);
      const fetched = seen?.isTextBased() ? await seen.messages.fetch(messageId) : undefined;
      expect(fetched?.poll?.question.text).toBe('Pizza or pasta?');
      expect(fetched?.poll?.answers.map((a) => a.text)).toEqual(['pizza', 'pasta', 'both']);
    });

    it('refuses too few or too many answers and durations outside 1..768 hours', async () => {
      const channel = newChannel(h);
      for (const [data, field] of [
        [{ answers: ['only'], durationHours: 1 }, 'answers'],
        [{ answers: Array.from({ length: 11 }, (_, i) => `a${i}`), durationHours: 1 }, 'answers'],
        [{ answers: ['a', 'b'], durationHours: 0 }, 'durationHours'],
        [{ answers: ['a', 'b'], durationHours: 769 }, 'durationHours'],
        [{ answers: ['a', 'b'], durationHours: 1.5 }, 'durationHours'],
      ] as const) {
        const bad = await ask(Subjects.discord.rpcCreatePoll, {
          channelId: channel.id,
          question: 'q?',
          ...data,
        });
        expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
        expect(JSON.stringify(bad)).toEqual(expect.stringContaining(field));
      }
      expect(h.discord.channelMessages(channel.id)).toEqual([]);
      h.discord.failNext({
        method: 'POST',
        path: `/channels/${channel.id}/messages`,
        status: 403,
        code: 50001,
      });
      expect(
        await ask(Subjects.discord.rpcCreatePoll, {
          channelId: channel.id,
          question: 'q?',
          answers: ['a', 'b'],
          durationHours: 2,
        }),
      ).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    });
  });

  describe('create-channel { private: true } and guild.joined', () => {
    it('makes a channel only the bot and Manage Server members see', async () => {
      const carol = h.discord.createUser({ id: snowflake(), username: 'carol' });
      h.discord.addMember(h.guild.id, carol.id);
      const staff = h.discord.admin.createRole(h.guild.id, {
        name: `staff-${snowflake()}`,
        permissions: PermissionFlagsBits.ManageGuild,
      });
      h.discord.admin.setMemberRole(h.guild.id, carol.id, staff.id, true);
      const { channelId } = await ok(
        ask<{ channelId: string }>(Subjects.discord.rpcCreateChannel, {
          name: 'dit-mod',
          private: true,
        }),
      );
      expect(h.discord.canView(channelId, carol.id)).toBe(true);
      expect(h.discord.canView(channelId, h.discord.bot.id)).toBe(true);
      expect(h.discord.canView(channelId, h.bob.id)).toBe(false);
    });

    it('publishes guild.joined for each guild at start and when the bot joins one', async () => {
      const joinedOf = (guildId: string) =>
        readStream<GuildJoined>(
          h.nats,
          Streams.discordEvents,
          `${Subjects.discord.evtPrefix}.${guildId}.guild.joined`,
        );
      expect((await joinedOf(h.guild.id)).map((e) => e.data)).toEqual([
        { guildId: h.guild.id, name: h.guild.name },
      ]);
      const added = h.discord.createGuild({ id: snowflake(), name: 'new home' });
      await waitFor(async () => (await joinedOf(added.id)).length === 1, 15_000);
      expect((await joinedOf(added.id))[0].data).toEqual({ guildId: added.id, name: 'new home' });
    });
  });
});
