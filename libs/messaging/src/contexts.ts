import { BaseRpcContext } from '@nestjs/microservices';
import type { JsMsg } from '@nats-io/jetstream';
import type { Msg, MsgHdrs } from '@nats-io/nats-core';
import type { Envelope } from '@dirigent/contracts';
import type { DurableEventOptions } from './durable-consumer';

/**
 * What an `@EventPattern` handler sees of its JetStream delivery, through `@Ctx()`.
 *
 * @example
 * complete(@Payload() e: TurnComplete, @Ctx() ctx: JetStreamContext) {
 *   if (ctx.deliveryCount > 1) this.log.warn('redelivered');
 * }
 */
export class JetStreamContext extends BaseRpcContext<[JsMsg, Envelope, DurableEventOptions]> {
  get message(): JsMsg {
    return this.args[0];
  }
  get envelope(): Envelope {
    return this.args[1];
  }
  get options(): DurableEventOptions {
    return this.args[2];
  }
  get subject(): string {
    return this.args[0].subject;
  }
  get headers(): MsgHdrs | undefined {
    return this.args[0].headers;
  }
  /** 1 on the first delivery. */
  get deliveryCount(): number {
    return this.args[0].info.deliveryCount;
  }
  /** Stream sequence of the message. */
  get seq(): number {
    return this.args[0].seq;
  }
  /** Tells the server the handler is still busy (resets the ack wait). */
  working(): void {
    this.args[0].working();
  }
}

/** What a `@MessagePattern` handler sees of its NATS request, through `@Ctx()`. */
export class NatsRequestContext extends BaseRpcContext<[Msg]> {
  get message(): Msg {
    return this.args[0];
  }
  get subject(): string {
    return this.args[0].subject;
  }
  get headers(): MsgHdrs | undefined {
    return this.args[0].headers;
  }
}
