import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CheckTurnRequest,
  DomainError,
  ErrorCodes,
  INSTANCE_PATTERN,
  MASTER_INSTANCE,
  Subjects,
  TurnComplete,
  isEnvelope,
  subject,
  validatePayload,
  type Envelope,
} from '@dirigent/contracts';
import { Messaging, type NatsRequestContext, type RequestOptions } from '@dirigent/messaging';
import { CheckTurn } from '../application/check-turn';
import { Identities } from '../application/identities';

const RELAY_PREFIX = `${Subjects.relay.prefix}.`;

/**
 * The instance a request came from: the `<instance>` token of `dirigent.relay.<instance>.…`,
 * which only the relay's NATS account import can put there (a relay's own clients cannot
 * publish under `dirigent.relay.` at all); any other subject is the master's own.
 */
export function instanceOf(ctx: NatsRequestContext): string {
  const subj = ctx.subject;
  if (!subj.startsWith(RELAY_PREFIX)) return MASTER_INSTANCE;
  const instance = subj.slice(RELAY_PREFIX.length).split('.', 1)[0];
  if (!INSTANCE_PATTERN.test(instance) || instance === MASTER_INSTANCE) {
    throw new DomainError(ErrorCodes.BAD_REQUEST, `"${instance}" is not a relay instance name`);
  }
  return instance;
}

/**
 * What relay instances ask of the master through their account's imports (docs/architecture.md,
 * "Relay instances"): check-turn as it is, and turn completions, which are taken into the
 * turn-complete stream only for an agent bound to the relay that sends them.
 */
@Controller()
export class RelayHandler {
  constructor(
    private readonly checkTurn: CheckTurn,
    private readonly identities: Identities,
    private readonly messaging: Messaging,
  ) {}

  /** As `Subjects.turn.check` (answered from memory, no ORM context): read-only, any agent. */
  @MessagePattern(Subjects.relay.checkAll, { around: false } satisfies RequestOptions)
  check(@Payload() r: CheckTurnRequest, @Ctx() ctx: NatsRequestContext) {
    instanceOf(ctx);
    return this.checkTurn.run(r);
  }

  /**
   * A relay's `turn.complete` publish, as the envelope a local agent would store: stored in
   * the stream with the same `Nats-Msg-Id` (a re-send after a cut link is de-duplicated);
   * the reply carries the stream's ack.
   */
  @MessagePattern(Subjects.relay.completeAll)
  async complete(@Payload() body: unknown, @Ctx() ctx: NatsRequestContext) {
    const instance = instanceOf(ctx);
    if (!isEnvelope(body)) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, 'turn.complete must be an envelope');
    }
    const checked = validatePayload(TurnComplete, body.data);
    if (!checked.ok) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, 'invalid turn.complete', checked.errors);
    }
    const channelId = ctx.subject.slice(ctx.subject.lastIndexOf('.') + 1);
    if (checked.value.channelId !== channelId) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, 'channelId does not match the subject');
    }
    await this.identities.assertActsFor(checked.value.agentId, instance);
    // The id is namespaced by instance: one relay cannot pre-empt another's run ids.
    const env: Envelope<TurnComplete> = {
      ...body,
      id: `${instance}:${body.id}`,
      data: checked.value,
    };
    const ack = await this.messaging.publish(subject.turnComplete(channelId), env);
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }
}
