import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { GatewayError } from './errors';
import type { Executed } from './operation';
import type { RequestMeta, UsageOutcome } from './ports';

/** An upstream stream whose first chunk has arrived (failover is over once it has). */
export interface StartedStream {
  it: AsyncIterator<ChatCompletionChunk>;
  first: IteratorResult<ChatCompletionChunk>;
}

export interface RelayOptions {
  /** Pass the usage chunk on (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** The longest wait for the next chunk. */
  idleMs: number;
  /** Called once at the end with the tokens used (upstream-reported, else estimated). */
  finish(inputTokens: number, outputTokens: number, outcome: UsageOutcome, error?: string): void;
  promptTokens: number;
}

/**
 * Relays an upstream stream to the caller, chunk by chunk, with an idle timeout between
 * chunks. A failure after the first chunk ends the stream with an error (no failover);
 * however it ends, the upstream is released and the call settled exactly once.
 */
export async function* relayStream(
  meta: RequestMeta,
  done: Executed<StartedStream>,
  opts: RelayOptions,
): AsyncGenerator<ChatCompletionChunk, void, undefined> {
  const { it } = done.value;
  const { includeUsage, idleMs } = opts;
  let usage: ChatCompletionChunk['usage'] | undefined;
  let streamedChars = 0;
  let outcome: UsageOutcome = 'aborted';
  let error: string | undefined;
  try {
    let next = done.value.first;
    while (!next.done) {
      const chunk = next.value;
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) {
        streamedChars += (c.delta.content ?? '').length;
        for (const t of c.delta.tool_calls ?? [])
          streamedChars += (t.function?.arguments ?? '').length;
      }
      if (chunk.choices.length || includeUsage) {
        yield chunk.usage && !includeUsage ? { ...chunk, usage: undefined } : chunk;
      }
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      try {
        next = await Promise.race([
          it.next(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              timedOut = true;
              done.controller.abort();
              reject(
                new GatewayError(
                  504,
                  'server_error',
                  'upstream_timeout',
                  'upstream stalled mid-stream',
                ),
              );
            }, idleMs);
          }),
        ]);
      } catch (e) {
        if (timedOut || e instanceof GatewayError) throw e;
        if (meta.signal.aborted)
          throw new GatewayError(
            499,
            'client_closed',
            'client_closed',
            'client closed the request',
          );
        throw new GatewayError(
          502,
          'server_error',
          'upstream_error',
          `upstream failed mid-stream: ${(e as Error).message}`,
        );
      } finally {
        clearTimeout(timer);
      }
    }
    outcome = 'ok';
  } catch (e) {
    outcome = meta.signal.aborted ? 'aborted' : 'failed';
    error = (e as Error).message;
    throw e;
  } finally {
    if (outcome !== 'ok') done.controller.abort();
    done.release();
    const input = usage?.prompt_tokens ?? opts.promptTokens;
    const output = usage?.completion_tokens ?? Math.ceil(streamedChars / 3);
    opts.finish(input, output, outcome, error);
    if (outcome !== 'ok') void it.return?.().catch(() => undefined);
  }
}
