import { Module, type DynamicModule } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { Options } from '@mikro-orm/postgresql';
import { LoggerModule } from 'nestjs-pino';
import type { StreamSpec } from '@dirigent/contracts';
import { MessagingModule } from '@dirigent/messaging';
import { serviceOrmConfig } from '@dirigent/persistence';
import { Clock, ClockModule } from './clock';
import { HealthController } from './health.controller';
import { logDestination, redactPaths } from './logging';

export interface CoreOptions {
  service: string;
  natsUrl: string;
  natsUser?: string;
  natsPassword?: string;
  databaseUrl: string;
  logLevel: string;
  /** The pino `name`; defaults to the service name. */
  logName?: string;
  streams: StreamSpec[];
  entities?: Options['entities'];
  /** The service's time (default: the system's). */
  clock?: Clock;
}

/**
 * What every Dirigent service has: JSON logs, NATS with its streams, Postgres through
 * MikroORM, the `Clock`, `/healthz` and `/metrics`.
 */
@Module({})
export class CoreModule {
  static forRoot(opts: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ClockModule.forRoot(opts.clock),
        LoggerModule.forRoot({
          pinoHttp: [
            {
              name: opts.logName ?? opts.service,
              level: opts.logLevel,
              redact: { paths: redactPaths, censor: '[redacted]' },
              autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
            },
            logDestination() ?? process.stdout,
          ],
        }),
        MessagingModule.forRoot({
          service: opts.service,
          url: opts.natsUrl,
          user: opts.natsUser,
          pass: opts.natsPassword,
          streams: opts.streams,
        }),
        MikroOrmModule.forRoot({
          ...serviceOrmConfig(opts.databaseUrl, opts.entities),
          registerRequestContext: true,
        }),
      ],
      controllers: [HealthController],
    };
  }
}
