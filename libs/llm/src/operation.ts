import type { ModelConfig } from './config';
import type { Micros } from './pricing';
import type { Routed } from './ports';
import type { Provider } from './providers';
import type { RoutePlan } from './routing';

/** The budget a request holds: its guild, its UTC day and what it has reserved so far. */
export interface Held {
  guildId: string;
  day: string;
  micros: Micros;
}

/** One gateway call as failover and accounting see it: what it costs and how to make it. */
export interface Operation<T> {
  kind: 'chat' | 'embed';
  stream: boolean;
  requestedModel: string;
  plan: RoutePlan;
  promptTokens: number;
  maxCost(model: ModelConfig): Micros;
  call(model: ModelConfig, provider: Provider, signal: AbortSignal): Promise<T>;
}

/** A call that succeeded, with what it still holds (the reservation, the abort listener). */
export interface Executed<T> extends Routed {
  value: T;
  held: Held;
  controller: AbortController;
  release(): void;
  started: number;
}
