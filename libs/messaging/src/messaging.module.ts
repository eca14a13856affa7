import {
  Global,
  Inject,
  Injectable,
  Logger as NestLogger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { StreamSpec } from '@dirigent/contracts';
import { NatsClient } from './connection';
import { Messaging } from './messaging';
import { ensureStream } from './provision';

export interface MessagingModuleOptions {
  /** The service name: NATS connection name and envelope `source`. */
  service: string;
  url: string;
  /** The service's NATS user (`NATS_USER`/`NATS_PASSWORD`); anonymous when absent. */
  user?: string;
  pass?: string;
  /** Streams this service publishes to or consumes; provisioned idempotently at start. */
  streams: StreamSpec[];
}

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

@Injectable()
class MessagingLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly messaging: Messaging,
    private readonly client: NatsClient,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.messaging.close();
    await this.client.close();
  }
}

/**
 * Nest wiring for {@link NatsClient} and {@link Messaging}: connects and provisions the
 * streams before any module initialises, and drains on shutdown.
 */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingModuleOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        {
          provide: NatsClient,
          useFactory: async () => {
            const client = await NatsClient.connect({
              url: options.url,
              name: options.service,
              user: options.user,
              pass: options.pass,
            });
            // At once: one round trip for all of them, not one per stream, on every start.
            await Promise.all(options.streams.map((spec) => ensureStream(client.jsm, spec)));
            return client;
          },
        },
        {
          provide: Messaging,
          inject: [NatsClient],
          useFactory: (client: NatsClient) => {
            const log = new NestLogger(`${options.service}:messaging`);
            return new Messaging(client, options.service, {
              info: (o, m) => log.log({ ...o, msg: m }),
              warn: (o, m) => log.warn({ ...o, msg: m }),
              error: (o, m) => log.error({ ...o, msg: m }),
            });
          },
        },
        MessagingLifecycle,
      ],
      exports: [NatsClient, Messaging, MESSAGING_OPTIONS],
    };
  }
}

export const InjectMessagingOptions = () => Inject(MESSAGING_OPTIONS);
