import { Module, type DynamicModule } from '@nestjs/common';
import { BaseConfig, EnvPort, loadConfig, type ServiceDefinition } from '@dirigent/service-kit';
import { ControlWebModule } from './control-web.module';
import { withControlPage } from './with-control-page';

@Module({})
class ServiceModule {}

class XConfig extends BaseConfig {
  @EnvPort() X_PORT = 1;
}
const def: ServiceDefinition<XConfig> = {
  name: 'x',
  portEnv: 'X_PORT',
  defaultPort: 1,
  config: XConfig,
  streams: [],
  module: () => ServiceModule,
};
const env = { DATABASE_URL: 'postgres://u@h/db' };

describe('withControlPage', () => {
  const wrapped = withControlPage(def);

  it('adds DIRIGENT_CONTROL_TOKEN (optional, blank = unset, at least 16 characters)', () => {
    expect(loadConfig(wrapped.config, env).DIRIGENT_CONTROL_TOKEN).toBeUndefined();
    expect(
      loadConfig(wrapped.config, { ...env, DIRIGENT_CONTROL_TOKEN: '  ' }).DIRIGENT_CONTROL_TOKEN,
    ).toBeUndefined();
    expect(() => loadConfig(wrapped.config, { ...env, DIRIGENT_CONTROL_TOKEN: 'short' })).toThrow(
      /DIRIGENT_CONTROL_TOKEN must be at least 16 characters/,
    );
    const token = 'a-token-of-sixteen+';
    expect(loadConfig(wrapped.config, { ...env, DIRIGENT_CONTROL_TOKEN: token })).toMatchObject({
      DIRIGENT_CONTROL_TOKEN: token,
      X_PORT: 1,
    });
    const padded = loadConfig(wrapped.config, { ...env, DIRIGENT_CONTROL_TOKEN: ` ${token} ` });
    expect(padded.DIRIGENT_CONTROL_TOKEN).toBe(token);
    expect(padded).toBeInstanceOf(XConfig);
  });

  it("imports the service's own module and the control page, keeping the rest", () => {
    const config = loadConfig(wrapped.config, env);
    const mod = wrapped.module(config) as DynamicModule;
    expect(mod.imports?.[0]).toBe(ServiceModule);
    expect((mod.imports?.[1] as DynamicModule).module).toBe(ControlWebModule);
    expect(wrapped).toMatchObject({ name: 'x', portEnv: 'X_PORT', defaultPort: 1 });
  });
});

describe('withControlPage twice', () => {
  it('returns an already wrapped definition unchanged', () => {
    const once = withControlPage(def);
    expect(withControlPage(once)).toBe(once);
  });
});
