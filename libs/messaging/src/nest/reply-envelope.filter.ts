import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { of, throwError, type Observable } from 'rxjs';
import { NatsRequestContext } from '../contexts';
import { failureReply, type Logger } from '../errors';
import { FailedReply } from '../jetstream.server';

/**
 * The one place a handler's failure becomes a reply: for a request, the `{ ok:false, error }`
 * envelope (a DomainError keeps its code; anything else is logged and answered `INTERNAL`
 * without its text). For a durable event the error goes back to the transport, which naks
 * (transient) or terms and dead-letters (permanent) the message.
 */
@Catch()
export class ReplyEnvelopeFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<unknown> {
    const ctx = host.switchToRpc().getContext<unknown>();
    if (ctx instanceof NatsRequestContext) {
      return of(new FailedReply(failureReply(exception, this.log, ctx.subject)));
    }
    return throwError(() => exception);
  }
}
