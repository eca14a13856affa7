import { IsOptional, Matches } from 'class-validator';
import {
  BaseConfig,
  ConfigError,
  EnvBool,
  EnvInt,
  EnvPort,
  loadConfig,
  type DerivedConfig,
} from './config';

class SampleConfig extends BaseConfig {
  @EnvPort() SAMPLE_PORT = 3009;
  @EnvInt({ min: 1, max: 8 }) SAMPLE_WORKERS = 2;
  @EnvBool() SAMPLE_DRY_RUN = false;
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: '$property must be a Discord snowflake' })
  SAMPLE_USER_ID?: string;
}

const db = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };

describe('loadConfig', () => {
  it('applies defaults and coerces numbers and booleans into a typed instance', () => {
    const config = loadConfig(SampleConfig, {
      ...db,
      SAMPLE_PORT: '0',
      SAMPLE_WORKERS: ' 8 ',
      SAMPLE_DRY_RUN: 'yes',
    });
    expect(config).toBeInstanceOf(SampleConfig);
    expect(config).toMatchObject({
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: db.DATABASE_URL,
      LOG_LEVEL: 'info',
      SAMPLE_PORT: 0,
      SAMPLE_WORKERS: 8,
      SAMPLE_DRY_RUN: true,
    });
    expect(config.SAMPLE_USER_ID).toBeUndefined();
    expect(loadConfig(SampleConfig, { ...db, SAMPLE_DRY_RUN: 'off' }).SAMPLE_DRY_RUN).toBe(false);
  });

  it('counts an empty or blank variable as unset', () => {
    const config = loadConfig(SampleConfig, {
      ...db,
      NATS_URL: '',
      SAMPLE_PORT: '  ',
      SAMPLE_USER_ID: '',
    });
    expect(config).toMatchObject({ NATS_URL: 'nats://127.0.0.1:4222', SAMPLE_PORT: 3009 });
    expect(config.SAMPLE_USER_ID).toBeUndefined();
    expect(() => loadConfig(SampleConfig, { DATABASE_URL: '' })).toThrow(
      new ConfigError('config error: DATABASE_URL is required (postgres://user@host:5432/db)'),
    );
  });

  it('takes a NATS user and password together, never a password alone', () => {
    expect(loadConfig(SampleConfig, db).NATS_USER).toBeUndefined();
    expect(
      loadConfig(SampleConfig, { ...db, NATS_USER: 'router', NATS_PASSWORD: 'pw' }),
    ).toMatchObject({ NATS_USER: 'router', NATS_PASSWORD: 'pw' });
    expect(() => loadConfig(SampleConfig, { ...db, NATS_PASSWORD: 'pw' })).toThrow(
      new ConfigError('config error: NATS_USER is required when NATS_PASSWORD is set'),
    );
    expect(() => loadConfig(SampleConfig, { ...db, NATS_USER: 'a b' })).toThrow(
      /NATS_USER must be a NATS user name/,
    );
  });

  it('ignores variables the class does not declare', () => {
    const config = loadConfig(SampleConfig, { ...db, HOME: '/root', SECRET: 'zzz' });
    expect(JSON.stringify(config)).not.toContain('zzz');
    expect(config).not.toHaveProperty('HOME');
  });

  it('fails with one line naming every bad variable, one problem each', () => {
    let error: unknown;
    try {
      loadConfig(SampleConfig, {
        NATS_URL: 'http://127.0.0.1:4222',
        LOG_LEVEL: 'loud',
        SAMPLE_PORT: '70000',
        SAMPLE_WORKERS: 'many',
        SAMPLE_DRY_RUN: 'maybe',
        SAMPLE_USER_ID: 'bob',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'config error: ' +
        [
          'NATS_URL must be a nats:// URL',
          'DATABASE_URL is required (postgres://user@host:5432/db)',
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
          'SAMPLE_PORT must be at most 65535',
          'SAMPLE_WORKERS must be an integer',
          'SAMPLE_DRY_RUN must be true or false',
          'SAMPLE_USER_ID must be a Discord snowflake',
        ].join('; '),
    );
    expect(() => loadConfig(SampleConfig, { ...db, SAMPLE_WORKERS: '0' })).toThrow(
      new ConfigError('config error: SAMPLE_WORKERS must be at least 1'),
    );
    expect(() => loadConfig(SampleConfig, { DATABASE_URL: 'mysql://u@h/db' })).toThrow(
      new ConfigError('config error: DATABASE_URL must be a postgres:// URL'),
    );
  });

  describe('a derived config', () => {
    class WithFile extends BaseConfig implements DerivedConfig {
      @IsOptional()
      @Matches(/\.json$/, { message: '$property must name a .json file' })
      SAMPLE_FILE?: string;
      keys: string[] = [];
      derive(env: NodeJS.ProcessEnv): string[] {
        if (!env.SAMPLE_KEY) return ['SAMPLE_KEY is not set (the file names it)'];
        this.keys = [env.SAMPLE_KEY];
        return [];
      }
    }

    it('finishes itself from the environment once its variables are valid', () => {
      expect(loadConfig(WithFile, { ...db, SAMPLE_KEY: 'k' }).keys).toEqual(['k']);
      expect(() => loadConfig(WithFile, db)).toThrow(
        new ConfigError('config error: SAMPLE_KEY is not set (the file names it)'),
      );
      expect(() => loadConfig(WithFile, { ...db, SAMPLE_FILE: 'x.yaml' })).toThrow(
        new ConfigError('config error: SAMPLE_FILE must name a .json file'),
      );
    });
  });
});
