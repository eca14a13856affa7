import { SettableClock } from '@dirigent/service-kit';
import { ChannelHistory, type ChannelEvents, type HistoryMessage } from './clients';
import { RecentTalk, START_READ_MAX, START_READ_SERVES_MS, TALK_WINDOW_MS } from './recent-talk';

/** A history whose message reads are counted and finish when the test says. */
class CountedHistory extends ChannelHistory {
  readonly reads: { channelId: string; from: number }[] = [];
  finish: (m: HistoryMessage[]) => void = () => undefined;
  fail: (e: Error) => void = () => undefined;

  messagesSince(_g: string, channelId: string, from: number): Promise<HistoryMessage[]> {
    this.reads.push({ channelId, from });
    return new Promise((resolve, reject) => {
      this.finish = resolve;
      this.fail = reject;
    });
  }

  /** Every channel's talk at start: what `all` holds (undefined: more than `max`). */
  all: Map<string, HistoryMessage[]> | undefined | Error = new Map();
  readonly starts: { from: number; max: number }[] = [];
  recentMessages(from: number, max: number): Promise<Map<string, HistoryMessage[]> | undefined> {
    this.starts.push({ from, max });
    const all = this.all;
    return all instanceof Error ? Promise.reject(all) : Promise.resolve(all);
  }

  since = (): Promise<ChannelEvents> => Promise.reject(new Error('not read here'));
  botTurnsSince = () => Promise.resolve([]);
  newest = () => Promise.resolve(undefined);
}

const said: HistoryMessage = {
  messageId: '1',
  authorId: '9',
  authorIsBot: false,
  content: 'hi',
  at: 1,
};

describe('recent talk', () => {
  it('reads a channel once for the readers that ask while the read is out, the longest window', async () => {
    const history = new CountedHistory();
    const clock = new SettableClock();
    const talk = new RecentTalk(history, clock);
    const room = talk.messages('g', 'c');
    const upkeep = talk.messages('g', 'c');
    expect(history.reads).toHaveLength(1);
    expect(clock.now() - history.reads[0].from).toBeGreaterThanOrEqual(30 * 60_000);
    expect(TALK_WINDOW_MS).toBe(30 * 60_000);
    history.finish([said]);
    expect(await room).toEqual([said]);
    expect(await upkeep).toEqual([said]);
    // Done: nothing kept; a later reader reads again.
    void talk.messages('g', 'c');
    expect(history.reads).toHaveLength(2);
  });

  it('lets the next reader try again after a failed read', async () => {
    const history = new CountedHistory();
    const talk = new RecentTalk(history, new SettableClock());
    const first = talk.messages('g', 'c');
    history.fail(new Error('nats down'));
    await expect(first).rejects.toThrow('nats down');
    void talk.messages('g', 'c');
    expect(history.reads).toHaveLength(2);
  });

  it('serves every channel from the one read at start, a channel it found nothing of as empty', async () => {
    const history = new CountedHistory();
    history.all = new Map([['c', [said]]]);
    const clock = new SettableClock();
    const talk = new RecentTalk(history, clock);
    await talk.onApplicationBootstrap();
    expect(history.starts).toHaveLength(1);
    expect(history.starts[0].max).toBe(START_READ_MAX);
    expect(clock.now() - history.starts[0].from).toBeGreaterThanOrEqual(TALK_WINDOW_MS);
    expect(await talk.messages('g', 'c')).toEqual([said]);
    expect(await talk.messages('g', 'quiet')).toEqual([]);
    expect(history.reads).toHaveLength(0);
    // Long after the start, a channel first asked is read on its own.
    clock.advance(START_READ_SERVES_MS);
    void talk.messages('g', 'later');
    expect(history.reads.map((r) => r.channelId)).toEqual(['later']);
  });

  it('reads each channel on its own when the start could not read them all', async () => {
    for (const all of [undefined, new Error('nats down')]) {
      const history = new CountedHistory();
      history.all = all;
      const talk = new RecentTalk(history, new SettableClock());
      await talk.onApplicationBootstrap();
      const room = talk.messages('g', 'c');
      await new Promise((r) => setImmediate(r));
      expect(history.reads.map((r) => r.channelId)).toEqual(['c']);
      history.finish([said]);
      expect(await room).toEqual([said]);
    }
  });
});
