import fc from 'fast-check';
import { parseChatRequest } from './request';
import { ChatRequestBody } from './request-body';
import { validateFields } from './validation';

/** Values of every kind a JSON body may hold, biased towards the edges of the checks. */
const value = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, 2, -1, 0.5, 1.5, 2.5, 64, '', 'x', 'user', 'system'),
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant([]),
  fc.constant({}),
);

const message = fc.record(
  {
    role: fc.oneof(
      fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'bot'),
      value,
    ),
    content: fc.oneof(
      fc.string({ maxLength: 5 }),
      value,
      fc.constant([{ type: 'text', text: 'a' }]),
    ),
    name: fc.oneof(fc.string({ maxLength: 3 }), value),
    tool_call_id: fc.string({ maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const body = fc.record(
  {
    model: fc.oneof(fc.constantFrom('purpose:agent', 'm', '', 'x'.repeat(201)), value),
    messages: fc.oneof(fc.array(message, { maxLength: 3 }), value),
    stream: value,
    max_tokens: value,
    max_completion_tokens: value,
    temperature: value,
    top_p: value,
    n: value,
    user: value,
    seed: value,
  },
  { requiredKeys: [] },
);

describe('parseChatRequest', () => {
  it('accepts exactly what the full validation accepts, with the same value', () => {
    fc.assert(
      fc.property(body, (b) => {
        const full = validateFields(ChatRequestBody, b).issues.length === 0;
        const r = parseChatRequest(b);
        expect(r.ok).toBe(full);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a plain request as sent', () => {
    const b = {
      model: 'purpose:agent',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi', name: 'ann' },
      ],
      max_tokens: 64,
      temperature: 0.2,
    };
    expect(parseChatRequest(b)).toEqual({ ok: true, value: b });
  });

  it('does not trip over a __proto__ field', () => {
    const b = JSON.parse('{"model":"m","messages":[{"role":"user","content":"x"}],"__proto__":1}');
    expect(parseChatRequest(b).ok).toBe(true);
  });
});
