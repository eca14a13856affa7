import { Global, Logger, Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { KeyedQueue, Messaging } from '@dirigent/messaging';
import { Reactor } from '@dirigent/reactor';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { JetStreamChannelHistory } from './adapters/channel-history';
import { RecentTalk } from './application/recent-talk';
import { NatsTurnCoordination } from './adapters/coordinator.client';
import { NatsModelGateway } from './adapters/gateway.client';
import { NatsChannelMembers } from './adapters/members.client';
import { NatsMemoryLenses } from './adapters/memory.client';
import { JetStreamOutbox } from './adapters/outbox';
import { PostgresDecisionLog } from './adapters/postgres/decision.repository';
import { Agents } from './application/agents';
import { ChannelActivity } from './application/channel-activity';
import {
  ChannelHistory,
  ChannelMembers,
  MemoryLenses,
  ModelGateway,
  RouterOutbox,
  TurnCoordination,
} from './application/clients';
import { ROUTER_SERVICE } from './application/schedule-followup';
import { DecisionLog } from './application/stores';
import type { RouterConfig } from './config';

const nats = (factory: (m: Messaging, c: RouterConfig) => unknown) => ({
  inject: [Messaging, SERVICE_CONFIG],
  useFactory: factory,
});

/** Due by the service's clock, as its use cases arm them; a jump of the clock re-arms them. */
async function routerTimers(m: Messaging, clock: Clock): Promise<DurableTimers> {
  const timers = await DurableTimers.open(m, ROUTER_SERVICE, { now: () => clock.now() });
  clock.onJump(() => timers.rearm());
  return timers;
}

/**
 * What every area of the router shares, global: the reactor over the router's durable
 * timers and the channel lanes, the built-in agents, what the router has seen of each
 * channel, the clients of the other services and the outbox (`application/clients.ts`), and
 * the decision log (the orchestrator records its Discord answers in it too).
 */
@Global()
@Module({
  providers: [
    { provide: KeyedQueue, useValue: new KeyedQueue() },
    { provide: DurableTimers, inject: [Messaging, Clock], useFactory: routerTimers },
    {
      provide: Reactor,
      inject: [DurableTimers, KeyedQueue],
      useFactory: (timers: DurableTimers, lanes: KeyedQueue) => {
        const log = new Logger('router:reactor');
        return new Reactor({
          timers,
          lanes,
          log: (o) => log.debug?.(o, o.fired ? 'job fired' : 'job not due'),
        });
      },
    },
    Agents,
    ChannelActivity,
    RecentTalk,
    {
      provide: ModelGateway,
      ...nats((m, c) => new NatsModelGateway(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: MemoryLenses,
      ...nats((m, c) => new NatsMemoryLenses(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: ChannelMembers,
      ...nats((m, c) => new NatsChannelMembers(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    {
      provide: TurnCoordination,
      ...nats((m, c) => new NatsTurnCoordination(m, c.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS)),
    },
    { provide: RouterOutbox, ...nats((m) => new JetStreamOutbox(m)) },
    { provide: ChannelHistory, ...nats((m) => new JetStreamChannelHistory(m)) },
    {
      provide: DecisionLog,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresDecisionLog(em),
    },
  ],
  exports: [
    KeyedQueue,
    DurableTimers,
    Reactor,
    Agents,
    ChannelActivity,
    ModelGateway,
    MemoryLenses,
    ChannelMembers,
    TurnCoordination,
    RouterOutbox,
    ChannelHistory,
    RecentTalk,
    DecisionLog,
  ],
})
export class RouterSharedModule {}
