import { Module, type DynamicModule } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { ControlData } from './control-data';
import { ControlWebController } from './control-web.controller';
import { InsightData } from './insight-data';
import { LearningData } from './learning-data';
import { ControlLiveHub } from './live-hub';
import { CONTROL_WEB_OPTIONS, type ControlWebOptions } from './options';
import { ChannelReadModel } from './read-model';

export { CONTROL_WEB_OPTIONS, type ControlWebOptions } from './options';

/**
 * The control page as a Nest module, for the turn coordinator's HTTP server.
 *
 * @example
 * imports: [ControlWebModule.forRoot({ token: config.DIRIGENT_CONTROL_TOKEN })]
 */
@Module({})
export class ControlWebModule {
  static forRoot(opts: ControlWebOptions): DynamicModule {
    return {
      module: ControlWebModule,
      controllers: [ControlWebController],
      providers: [
        { provide: CONTROL_WEB_OPTIONS, useValue: opts },
        {
          provide: ChannelReadModel,
          inject: [MikroORM, Messaging],
          useFactory: (orm: MikroORM, messaging: Messaging) =>
            new ChannelReadModel(orm.em, new EventStore(messaging)),
        },
        {
          provide: ControlData,
          inject: [Messaging, ChannelReadModel],
          useFactory: (messaging: Messaging, reads: ChannelReadModel) =>
            new ControlData(messaging, reads, { egoFile: opts.egoFile }),
        },
        {
          provide: InsightData,
          inject: [Messaging],
          useFactory: (messaging: Messaging) => new InsightData(messaging),
        },
        {
          provide: LearningData,
          inject: [Messaging],
          useFactory: (messaging: Messaging) => new LearningData(messaging),
        },
        ControlLiveHub,
      ],
      exports: [ChannelReadModel],
    };
  }
}
