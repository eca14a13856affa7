import { ChannelActivity, type SeenMessage } from './channel-activity';

const own = new Set(['42']);
let n = 0;
const msg = (over: Partial<SeenMessage> = {}): SeenMessage => ({
  messageId: String(++n),
  guildId: '1',
  channelId: '2',
  authorId: '7',
  authorIsBot: false,
  content: 'hi',
  at: n,
  ...over,
});

describe('ChannelActivity', () => {
  it('resolves a beat on its own delivery (a bot message with its text), not on a human quoting it', async () => {
    const a = new ChannelActivity();
    const hook = a.expectDelivery('1', '2', ' first beat ');
    expect(a.observe(msg({ content: 'first beat' }), own)).toBe('new');
    expect(
      a.observe(
        msg({ messageId: '77', content: 'first beat', authorIsBot: true, webhookId: '5' }),
        own,
      ),
    ).toBe('own');
    await expect(hook.delivered).resolves.toBe('77');
    const account = a.expectDelivery('1', '2', 'second');
    expect(
      a.observe(
        msg({ messageId: '78', content: 'second', authorId: '42', authorIsBot: true }),
        own,
      ),
    ).toBe('own');
    await expect(account.delivered).resolves.toBe('78');
    expect(a.get('2').lastBotTurnAt).toBeDefined();
  });

  it('forgets a deleted message (it is no longer the one before a request)', () => {
    const a = new ChannelActivity();
    const kept = msg({ content: 'we ship on friday' });
    const notice = msg({ content: 'your turn', authorIsBot: true });
    a.observe(kept, own);
    a.observe(notice, own);
    a.forget('2', notice.messageId);
    a.forget('2', 'never-seen');
    expect(a.get('2').recent.map((m) => m.messageId)).toEqual([kept.messageId]);
  });

  it('the first human message during a burst is claimed by it, once the burst ends it is new again', () => {
    const a = new ChannelActivity();
    const burst = a.beginBurst('1', '2', 'decision-1');
    const first = msg({ content: 'wait' });
    expect(a.observe(first, own)).toBe('interrupt');
    expect(a.burstOf('2')).toBe('decision-1');
    // The next one is routed as usual, behind the burst in the channel's lane.
    expect(a.observe(msg({ content: 'and another' }), own)).toBe('new');
    expect(burst.interrupted()).toBe(first);
    burst.end();
    expect(a.observe(msg(), own)).toBe('new');
  });

  it('keeps what the reactor needs: last human, typing of others, messages since', () => {
    const a = new ChannelActivity();
    a.observe(msg({ at: 10 }), own);
    a.observe(msg({ at: 20, authorIsBot: true, authorId: '8' }), own);
    a.typing('1', '2', '42', 30, own);
    expect(a.get('2').othersTypingAt).toBeUndefined();
    a.typing('1', '2', '7', 31, own);
    expect(a.get('2')).toMatchObject({ lastHumanAt: 10, lastMessageAt: 20, othersTypingAt: 31 });
    expect(a.lastHuman('2')?.at).toBe(10);
    expect(a.since('2', 15).map((m) => m.at)).toEqual([20]);
  });

  describe('caught up with the stream', () => {
    const later = () => Date.now() + 1000;

    it('waits for the newest message of the stream until this process observes it', async () => {
      const a = new ChannelActivity();
      a.observe(msg({ messageId: '100', at: later() }), own);
      await expect(a.caughtUp('1', '2', '100', later(), 1000)).resolves.toBe(true);
      let done: boolean | undefined;
      const waiting = a.caughtUp('1', '2', '101', later(), 5000).then((c) => (done = c));
      await new Promise((r) => setTimeout(r, 20));
      expect(done).toBeUndefined();
      a.observe(msg({ messageId: '101', content: 'Dit, pin that', at: later() }), own);
      await expect(waiting).resolves.toBe(true);
      expect(a.lastHuman('2')?.content).toBe('Dit, pin that');
    });

    it('a newer message, or the history merged after a start, also counts', async () => {
      const a = new ChannelActivity();
      a.observe(msg({ messageId: '200', at: later() }), own);
      const byNewer = a.caughtUp('1', '2', '201', later(), 5000);
      a.observe(msg({ messageId: '202', at: later() }), own);
      await expect(byNewer).resolves.toBe(true);
      const byMerge = a.caughtUp('1', '2', '203', later(), 5000);
      a.merge('1', '2', [msg({ messageId: '203', at: later() })]);
      await expect(byMerge).resolves.toBe(true);
    });

    it('gives up after the timeout, once: the next turn does not wait for that message again', async () => {
      const a = new ChannelActivity();
      a.observe(msg({ messageId: '300', at: later() }), own);
      await expect(a.caughtUp('1', '2', '301', later(), 30)).resolves.toBe(false);
      const again = a.caughtUp('1', '2', '301', later(), 5000);
      const tick = new Promise((r) => setImmediate(() => r('still waiting')));
      await expect(Promise.race([again, tick])).resolves.toBe(true);
    });

    it('does not wait, in a channel it never saw, for a message from before it started', async () => {
      const a = new ChannelActivity();
      await expect(a.caughtUp('1', '9', '400', Date.now() - 60_000, 5000)).resolves.toBe(true);
    });
  });
});
