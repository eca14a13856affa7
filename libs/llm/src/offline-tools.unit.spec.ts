import { offlineChunks, offlineCompletion } from './offline';
import { offlineToolCall, pollOf, toolResultReply } from './offline-tools';
import type { ChatRequest, ChatTool } from './request';

const tools: ChatTool[] = [
  'dice',
  'poll',
  'create_thread',
  'pin_moment',
  'propose_restructure',
  'define',
  'weather',
  'gif',
  'remind',
  'time',
].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object' } },
}));

/** A request shaped like the router's synthesizer prompt. */
const turn = (message: string, ids = ''): ChatRequest => ({
  model: 'm',
  tools,
  tool_choice: 'auto',
  messages: [
    { role: 'system', content: 'You are Dit, a member of a Discord community.' },
    {
      role: 'user',
      content: `## message from Ada\n<@123456789> ${message}${ids ? `\n\n## message ids\n${ids}` : ''}`,
    },
  ],
});

describe('offline tool calls', () => {
  it('turns a restructure request into a proposal call with its steps', () => {
    expect(
      offlineToolCall(turn('restructure the server: merge #memes into #general, archive #old')),
    ).toEqual({
      name: 'propose_restructure',
      arguments: {
        summary: 'restructure the server: merge #memes into #general, archive #old',
        steps: ['merge #memes into #general', 'archive #old'],
      },
    });
    const bare = offlineToolCall(turn('could you reorganize things a bit?'));
    expect(bare?.name).toBe('propose_restructure');
    expect(bare?.arguments.steps).toEqual(['things a bit?']);
  });

  it('turns plain requests into the matching skill call', () => {
    expect(offlineToolCall(turn('roll 2d6+1 for initiative'))).toEqual({
      name: 'dice',
      arguments: { notation: '2d6+1' },
    });
    expect(offlineToolCall(turn('can you roll a d20?'))?.arguments).toEqual({ notation: 'd20' });
    expect(offlineToolCall(turn('open a poll: pizza or tacos?'))).toEqual({
      name: 'poll',
      arguments: { question: 'pizza or tacos?', options: ['pizza', 'tacos'] },
    });
    expect(offlineToolCall(turn('open a thread about the raid plan.'))).toEqual({
      name: 'create_thread',
      arguments: { name: 'the raid plan' },
    });
    const ids = 'this message: 30001\nit replies to: 30000\nthe message before it: 29999 (x)';
    expect(offlineToolCall(turn('pin that', ids))).toEqual({
      name: 'pin_moment',
      arguments: { messageId: '30000' },
    });
    expect(
      offlineToolCall(turn('pin that', 'this message: 30001\nthe message before it: 29999 (x)')),
    ).toEqual({ name: 'pin_moment', arguments: { messageId: '29999' } });
  });

  it('turns plain asks for a definition, the weather, a GIF, a reminder or a time into calls', () => {
    const call = (m: string) => offlineToolCall(turn(m));
    expect(call('define zymurgy')).toEqual({ name: 'define', arguments: { term: 'zymurgy' } });
    expect(call("what's the meaning of serendipity?")?.arguments).toEqual({ term: 'serendipity' });
    expect(call('what does "raised bed" mean?')?.arguments).toEqual({ term: 'raised bed' });
    expect(call("what's the weather like in Lisbon?")).toEqual({
      name: 'weather',
      arguments: { place: 'Lisbon' },
    });
    expect(call('forecast for New York, please')?.arguments).toEqual({ place: 'New York' });
    expect(call('send a gif of a happy cat')).toEqual({
      name: 'gif',
      arguments: { query: 'happy cat' },
    });
    expect(call('remind me in 2 hours to water the beds')).toEqual({
      name: 'remind',
      arguments: { when: 'in 2 hours to water the beds', target: 'me' },
    });
    expect(call('remind us Friday 18:00')).toEqual({
      name: 'remind',
      arguments: { when: 'Friday 18:00', target: 'channel' },
    });
    expect(call('7pm Lisbon in Tokyo?')).toEqual({
      name: 'time',
      arguments: { text: '7pm Lisbon in Tokyo' },
    });
    expect(call('what time is it in Sydney?')?.arguments).toEqual({
      text: 'what time is it in Sydney',
    });
    // A memory question, not a reminder; talk of the weather, not a forecast.
    expect(call('remind me what we decided about the lighthouse?')).toBeNull();
    expect(call('the weather was lovely yesterday')).toBeNull();
  });

  it('says what the utility skills answered in whole sentences', () => {
    const answered = (name: string, args: unknown, result: unknown) => {
      const req = turn('x');
      req.messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name, arguments: JSON.stringify(args) } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ status: 'done', result }) },
      );
      return toolResultReply(req);
    };
    expect(
      answered(
        'define',
        { term: 'zymurgy' },
        {
          term: 'zymurgy',
          definitions: [{ partOfSpeech: 'noun', text: 'the branch of chemistry of fermentation' }],
        },
      ),
    ).toBe('**zymurgy**: (noun) the branch of chemistry of fermentation.');
    expect(
      answered(
        'weather',
        { place: 'Lisbon' },
        {
          place: 'Lisbon, Portugal',
          current: { tempC: 18.5, description: 'partly cloudy' },
          days: [{ date: '2026-03-27', minC: 11, maxC: 19, description: 'slight rain' }],
        },
      ),
    ).toBe(
      "In Lisbon, Portugal it's 18.5 °C with partly cloudy right now. Next days: Fri 27 Mar 11–19 °C, slight rain.",
    );
    expect(
      answered(
        'weather',
        { place: 'X' },
        { place: 'X', status: 'unavailable', note: 'Try later.' },
      ),
    ).toBe('Try later.');
    expect(
      answered('gif', { query: 'cat' }, { status: 'refused', reason: 'no GIF provider' }),
    ).toBe("I can't do that here: no GIF provider.");
    expect(
      answered(
        'remind',
        { when: 'in 2 hours' },
        {
          reminderId: 'rem-1',
          dueAt: '2026-03-27T12:00:00.000Z',
          target: 'me',
          text: 'water the beds',
        },
      ),
    ).toBe("⏰ Okay, I'll remind you on Fri 27 Mar at 12:00 UTC: water the beds.");
    expect(answered('time', { text: 't' }, { result: '19:00 in Lisbon is 03:00 in Tokyo.' })).toBe(
      '19:00 in Lisbon is 03:00 in Tokyo.',
    );
  });

  it('calls nothing for other talk, without the tool, with tool_choice none or after a round', () => {
    expect(offlineToolCall(turn('how was the weekend?'))).toBeNull();
    expect(offlineToolCall({ ...turn('roll 2d6'), tools: tools.slice(1) })).toBeNull();
    expect(offlineToolCall({ ...turn('roll 2d6'), tool_choice: 'none' })).toBeNull();
    const after = turn('roll 2d6');
    after.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'dice', arguments: '{"notation":"2d6"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: '{"status":"done","result":{"notation":"2d6","rolls":[3,5],"total":8}}',
      },
    );
    expect(offlineToolCall(after)).toBeNull();
    expect(toolResultReply(after)).toBe('🎲 2d6: 3, 5 → **8**');
    expect(offlineCompletion(after, 'x', 'x', 100, 1).choices[0].message.content).toBe(
      '🎲 2d6: 3, 5 → **8**',
    );
  });

  it('reads polls in a few shapes', () => {
    expect(pollOf('best editor? vim, emacs / nano')).toEqual({
      question: 'best editor?',
      options: ['vim', 'emacs', 'nano'],
    });
    expect(pollOf('lunch: pizza, sushi')).toEqual({
      question: 'lunch?',
      options: ['pizza', 'sushi'],
    });
    expect(pollOf('should we move the meetup')).toEqual({
      question: 'should we move the meetup?',
      options: ['Yes', 'No'],
    });
  });

  it('answers and streams a tool call as OpenAI does', () => {
    const full = offlineCompletion(turn('roll 2d6'), 'x', 'x', 100, 1);
    expect(full.choices[0].finish_reason).toBe('tool_calls');
    const call = full.choices[0].message.tool_calls![0];
    expect(call).toEqual(
      expect.objectContaining({
        type: 'function',
        function: { name: 'dice', arguments: '{"notation":"2d6"}' },
      }),
    );
    const chunks = offlineChunks(turn('roll 2d6'), 'x', 'x', 100, 1);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual(expect.objectContaining({ index: 0, id: call.id }));
    expect(deltas.map((d) => d.function?.arguments ?? '').join('')).toBe('{"notation":"2d6"}');
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('offline steward requests in plain words', () => {
  const steward: ChatTool[] = [...tools, 'create_channel', 'manage_roles'].map((t) =>
    typeof t === 'string' ? { type: 'function', function: { name: t, parameters: {} } } : t,
  );
  const ask = (message: string) => offlineToolCall({ ...turn(message), tools: steward });

  it('a channel, an archive and a role become the matching proposal calls', () => {
    expect(ask('Dit, could you create a channel called garden-planning?')).toEqual({
      name: 'create_channel',
      arguments: { name: 'garden-planning' },
    });
    expect(ask('archive #old-events')).toEqual({
      name: 'propose_restructure',
      arguments: { summary: 'archive #old-events', steps: ['archive #old-events'] },
    });
    expect(ask('make a role for the gardeners')).toEqual({
      name: 'manage_roles',
      arguments: { action: 'create', roleName: 'gardeners' },
    });
  });

  it('asks nothing of a tool the request does not offer', () => {
    expect(offlineToolCall(turn('make a role for the gardeners'))).toBeNull();
    expect(offlineToolCall(turn('create a channel called garden-planning'))).toBeNull();
  });
});
