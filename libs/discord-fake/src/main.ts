import { FakeDiscord } from './fake-discord';

/**
 * A standalone local Discord for the playground: `node dist/libs/discord-fake/src/main.js`.
 * Seeds a guild with a #general channel, a moderator (alice) and a member (bob), then prints
 * what to give discord-ingest. Control it over HTTP under `/_fake/` (see control-api.ts).
 */
async function main(): Promise<void> {
  const port = Number(process.env.FAKE_DISCORD_PORT ?? 3900);
  const host = process.env.FAKE_DISCORD_HOST ?? '127.0.0.1';
  const token = process.env.FAKE_DISCORD_TOKEN ?? 'playground-token';
  const fake = await FakeDiscord.start({ port, host, token });
  const guild = fake.createGuild({ name: 'Playground' });
  const general = fake.createChannel(guild.id, { name: 'general' });
  const alice = fake.createUser({ username: 'alice' });
  const bob = fake.createUser({ username: 'bob' });
  fake.addMember(guild.id, alice.id, { manageChannels: true });
  fake.addMember(guild.id, bob.id);
  const base = fake.apiUrl.replace(/\/api$/, '');
  console.log(
    [
      `local Discord listening on ${base}`,
      `  DISCORD_API_URL=${fake.apiUrl}`,
      `  DISCORD_TOKEN=${token}`,
      `  guild ${guild.id} (#general ${general.id}); alice ${alice.id} (Manage Channels), bob ${bob.id}`,
      `  state: GET ${base}/_fake/state`,
      `  post:  POST ${base}/_fake/channels/${general.id}/messages {"authorId":"${alice.id}","content":"hi"}`,
    ].join('\n'),
  );
  const stop = () => void fake.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: Error) => {
  console.error(`discord-fake: ${e.message}`);
  process.exit(1);
});
