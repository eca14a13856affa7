import {
  DiscordEventPayloads,
  isDiscordEventKind,
  parseDiscordEventSubject,
  SNOWFLAKE_PATTERN,
  type DiscordEventKind,
  type DiscordEventPayload,
} from '@dirigent/contracts';
import type { JetStreamContext } from './contexts';
import { PermanentError } from './errors';

type One<T> = (payload: T, ctx: JetStreamContext) => unknown;
type Some<T> = One<T> | readonly One<T>[];

/**
 * A service's Discord events by kind: each kind names the handlers (in the order they run)
 * that take its validated payload; `guild.joined` takes the subject's guild id.
 */
export type DiscordEventHandlers = { [K in DiscordEventKind]?: Some<DiscordEventPayload<K>> } & {
  'guild.joined'?: Some<string>;
};

/**
 * The typed subject→handler map of a consumer of the Discord event stream: the subject is
 * parsed once, the payload validated by its kind's class, and handed to the handlers the map
 * lists for that kind, one after the other. A subject that names no guild and channel, a bad
 * guild id of `guild.joined`, or a payload its class refuses are permanent (terminated and
 * dead-lettered by the transport); a kind the map does not list is acknowledged untouched
 * (`unrouted` hears of it).
 *
 * @example
 * const routes = new DiscordEventRoutes({
 *   'message.created': [(m, ctx) => inbox.observe(m, ctx.envelope.id), (m) => learning.reply(m)],
 *   'typing.started': (t) => inbox.typing(t),
 * });
 * // in the `@EventPattern(Subjects.discord.evtAll, …)` handler:
 * return routes.dispatch(data, ctx);
 */
export class DiscordEventRoutes {
  constructor(
    private readonly handlers: DiscordEventHandlers,
    private readonly unrouted?: (subject: string) => void,
  ) {}

  async dispatch(data: unknown, ctx: JetStreamContext): Promise<void> {
    const s = parseDiscordEventSubject(ctx.subject);
    if (!s) throw new PermanentError(`unexpected subject ${ctx.subject}`);
    if (s.kind === 'guild.joined') {
      const handlers = this.handlers['guild.joined'];
      if (!handlers) return this.unrouted?.(ctx.subject);
      if (!SNOWFLAKE_PATTERN.test(s.guildId)) throw new PermanentError(`bad guild id ${s.guildId}`);
      return run(handlers, s.guildId, ctx);
    }
    const kind = s.kind;
    const handlers = isDiscordEventKind(kind) ? this.handlers[kind] : undefined;
    if (!handlers || !isDiscordEventKind(kind)) return this.unrouted?.(ctx.subject);
    return run(handlers as Some<object>, DiscordEventPayloads[kind].create(data), ctx);
  }
}

async function run<T>(handlers: Some<T>, payload: T, ctx: JetStreamContext): Promise<void> {
  for (const h of typeof handlers === 'function' ? [handlers] : handlers) await h(payload, ctx);
}
