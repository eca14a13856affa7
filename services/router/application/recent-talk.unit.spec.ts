import { SettableClock } from '@dirigent/service-kit';
import { ChannelHistory, type ChannelEvents, type HistoryMessage } from './clients';
import { RecentTalk, TALK_WINDOW_MS } from './recent-talk';

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
});
