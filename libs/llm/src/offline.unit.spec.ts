import { NO_REPLY } from '@dirigent/contracts';
import { offlineChunks, offlineCompletion, offlineEmbeddings, offlineVector } from './offline';
import type { ChatRequest } from './request';

const req = (content: string): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content }],
});

describe('offline provider', () => {
  it('answers NO_REPLY for the no-reply model and the same reply for the same input', () => {
    expect(
      offlineCompletion(req('hi'), 'no-reply', 'no-reply', 100, 1).choices[0].message.content,
    ).toBe(NO_REPLY);
    const a = offlineCompletion(req('hello there'), 'echo', 'echo', 100, 1);
    const b = offlineCompletion(req('hello there'), 'echo', 'echo', 100, 1);
    expect(a).toEqual(b);
    expect(a.choices[0].message.content).toMatch(/^(Hey|Hi|Hello)\b/);
    expect(
      offlineCompletion(req('what about pizza?'), 'echo', 'echo', 100, 1).choices[0].message
        .content,
    ).not.toBe(a.choices[0].message.content);
  });

  it('streams the same text word by word, then a finish and a usage chunk', () => {
    const full = offlineCompletion(req('one two three'), 'echo', 'echo', 100, 1);
    const chunks = offlineChunks(req('one two three'), 'echo', 'echo', 100, 1);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(full.choices[0].message.content);
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1].usage).toEqual(full.usage);
  });

  it('embeds deterministically as unit vectors, in floats or base64', () => {
    const v = offlineVector('abc', 64);
    expect(v).toHaveLength(64);
    expect(Math.hypot(...v)).toBeCloseTo(1, 9);
    expect(offlineVector('abc', 64)).toEqual(v);
    expect(offlineVector('abd', 64)).not.toEqual(v);
    const b64 = offlineEmbeddings(
      { model: 'e', input: ['abc'], encoding_format: 'base64', dimensions: 64 },
      'e',
    );
    const bytes = Buffer.from(b64.data[0].embedding as unknown as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    expect(decoded).toHaveLength(64);
    decoded.forEach((x, i) => expect(x).toBeCloseTo(v[i], 6));
    expect(offlineEmbeddings({ model: 'e', input: [1, 2, 3] }, 'e').data).toHaveLength(1);
  });
});
