import { request } from 'node:http';
import { ServerResponse } from 'node:http';
import { snowflake, waitFor } from '@dirigent/testing';
import { gatewaySuite, TOKEN } from './harness';

/** The event-stream answers the gateway writes, and the most each held unsent. */
function watchStreams() {
  const streams = new Map<ServerResponse, { maxBuffered: number; bufferedAfterFull: number }>();
  const write = ServerResponse.prototype.write;
  const spy = jest.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (
    this: ServerResponse,
    ...args: unknown[]
  ) {
    const ok = (write as (...a: unknown[]) => boolean).apply(this, args);
    if (String(this.getHeader('content-type')).startsWith('text/event-stream')) {
      const s = streams.get(this) ?? { maxBuffered: 0, bufferedAfterFull: -1 };
      s.maxBuffered = Math.max(s.maxBuffered, this.writableLength);
      if (!ok && s.bufferedAfterFull < 0) s.bufferedAfterFull = 0;
      else if (s.bufferedAfterFull >= 0) s.bufferedAfterFull = this.writableLength;
      streams.set(this, s);
    }
    return ok;
  });
  return { streams, restore: () => spy.mockRestore() };
}

describe('llm-gateway SSE back-pressure', () => {
  const t = gatewaySuite();

  it('holds the upstream back while the caller does not read, and then streams it whole', async () => {
    // 12,000 chunks of 500 bytes: megabytes more than the sockets between the three hold
    const word = `${'w'.repeat(499)} `;
    const words = 12_000;
    t.primary.behave = () => ({ kind: 'ok', text: word.repeat(words) });
    const watch = watchStreams();
    try {
      const body = JSON.stringify({
        model: 'gpt-primary',
        messages: [{ role: 'user', content: 'a long answer, please' }],
        stream: true,
      });
      const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: t.gw.port,
            path: '/v1/chat/completions',
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKEN}`,
              'content-type': 'application/json',
              'x-dirigent-guild': snowflake(),
            },
          },
          resolve,
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(res.statusCode).toBe(200);
      res.pause();
      // The caller reads nothing: the gateway's buffer fills; then it either waits for
      // 'drain' (back-pressure) or keeps buffering what the upstream sends.
      const [served, seen] = await waitFor(() =>
        [...watch.streams].find(
          ([r, s]) =>
            s.bufferedAfterFull >= 0 && (r.listenerCount('drain') > 0 || s.maxBuffered > 1 << 20),
        ),
      );
      expect(served.listenerCount('drain')).toBeGreaterThan(0);
      expect(seen.maxBuffered).toBeLessThan(256 * 1024);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.resume();
      await new Promise((r) => res.once('end', r));
      const events = text.split('\n\n').filter(Boolean);
      expect(events[events.length - 1]).toBe('data: [DONE]');
      const content = events
        .slice(0, -1)
        .map((e) => JSON.parse(e.slice('data: '.length)).choices[0]?.delta?.content ?? '')
        .join('');
      expect(content).toBe(word.repeat(words));
      expect(watch.streams.get(served)!.maxBuffered).toBeLessThan(256 * 1024);
    } finally {
      watch.restore();
    }
  });
});
