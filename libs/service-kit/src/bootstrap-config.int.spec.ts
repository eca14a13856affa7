import { Inject, Injectable, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { IsString } from 'class-validator';
import { testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import {
  BaseConfig,
  ConfigError,
  createServiceApp,
  EnvPort,
  SERVICE_CONFIG,
  type ServiceDefinition,
} from '.';

class SampleConfig extends BaseConfig {
  @EnvPort() SAMPLE_BOOT_PORT = 3099;
  @IsString() SAMPLE_BOOT_GREETING = 'hello';
}

@Injectable()
class Reader {
  constructor(
    @Inject(SERVICE_CONFIG) readonly config: SampleConfig,
    readonly nest: ConfigService<SampleConfig, true>,
  ) {}
}

@Module({ providers: [Reader] })
class SampleModule {}

const Sample: ServiceDefinition<SampleConfig> = {
  name: 'sample',
  portEnv: 'SAMPLE_BOOT_PORT',
  defaultPort: 3099,
  config: SampleConfig,
  streams: [],
  module: (config) => {
    expect(config).toBeInstanceOf(SampleConfig);
    return SampleModule;
  },
};

describe('a service config at boot', () => {
  const env = {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    SAMPLE_BOOT_PORT: '0',
    SAMPLE_BOOT_GREETING: 'hi',
  };

  it("is validated once, injected as SERVICE_CONFIG and read through Nest's ConfigService", async () => {
    const { app, config, port } = await createServiceApp(Sample, env, { shutdownHooks: false });
    try {
      const reader = app.get(Reader);
      expect(reader.config).toBe(config);
      expect(port).toBe(0);
      expect(reader.nest.get('SAMPLE_BOOT_GREETING', { infer: true })).toBe('hi');
      expect(reader.nest.get('SAMPLE_BOOT_PORT', { infer: true })).toBe(0);
      // Services sharing a process must not see each other's settings through process.env.
      expect(process.env.SAMPLE_BOOT_GREETING).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('refuses a bad environment before building the app', async () => {
    await expect(
      createServiceApp(Sample, { ...env, DATABASE_URL: undefined, SAMPLE_BOOT_PORT: '-1' }),
    ).rejects.toThrow(
      new ConfigError(
        'config error: DATABASE_URL is required (postgres://user@host:5432/db); ' +
          'SAMPLE_BOOT_PORT must be at least 0',
      ),
    );
  });
});
