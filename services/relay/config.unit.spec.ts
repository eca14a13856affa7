import { RelayConfigError, readRelayConfig } from './config';

const base = { DIRIGENT_MASTER_LEAF_URL: 'nats-leaf://relay-a:secret@master:7422' };

describe('relay configuration', () => {
  it('reads the leaf URL, port, agents and reply, with defaults', () => {
    expect(readRelayConfig(base)).toEqual({
      masterLeafUrl: base.DIRIGENT_MASTER_LEAF_URL,
      credsFile: undefined,
      port: 4223,
      agents: [],
      reply: 'NO_REPLY',
    });
    const c = readRelayConfig({
      DIRIGENT_MASTER_LEAF_URL: 'tls://master:7422',
      DIRIGENT_MASTER_CREDS: '/etc/relay.creds',
      DIRIGENT_RELAY_NATS_PORT: '5000',
      DIRIGENT_RELAY_AGENTS: 'dev:123456789012345678, ops_2:223456789012345678',
    });
    expect(c.port).toBe(5000);
    expect(c.credsFile).toBe('/etc/relay.creds');
    expect(c.agents).toEqual([
      { agentId: 'dev', discordUserId: '123456789012345678' },
      { agentId: 'ops_2', discordUserId: '223456789012345678' },
    ]);
  });

  it.each([
    [{}, /DIRIGENT_MASTER_LEAF_URL is required/],
    [{ DIRIGENT_MASTER_LEAF_URL: 'not a url' }, /not a URL/],
    [{ DIRIGENT_MASTER_LEAF_URL: 'http://master:7422' }, /nats-leaf:/],
    [{ DIRIGENT_MASTER_LEAF_URL: 'nats-leaf://master:7422' }, /credentials/],
    [{ ...base, DIRIGENT_RELAY_NATS_PORT: '70000' }, /DIRIGENT_RELAY_NATS_PORT/],
    [{ ...base, DIRIGENT_RELAY_AGENTS: 'dev' }, /snowflake/],
    [{ ...base, DIRIGENT_RELAY_AGENTS: 'a.b:123' }, /agentId:discordUserId/],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => readRelayConfig(env)).toThrow(RelayConfigError);
    expect(() => readRelayConfig(env)).toThrow(message);
  });
});
