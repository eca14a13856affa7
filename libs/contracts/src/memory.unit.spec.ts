import { DomainError } from './reply';
import {
  CONTEXT_STRATEGIES,
  MemoryContextRequest,
  MemorySearchRequest,
  MemoryHighlightAddRequest,
} from './memory';

const fieldErrors = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return ((e as DomainError).details as { field: string; messages: string[] }[]) ?? [];
  }
  throw new Error('expected BAD_REQUEST');
};

describe('memory contracts', () => {
  it('caps k at 50 and refuses a k below 1 or not an integer', () => {
    expect(MemorySearchRequest.create({ guildId: '1', query: 'x', k: 500 }).k).toBe(50);
    expect(MemorySearchRequest.create({ guildId: '1', query: 'x' }).k).toBeUndefined();
    expect(
      fieldErrors(() => MemorySearchRequest.create({ guildId: '1', query: 'x', k: 0 }))[0].field,
    ).toBe('k');
    expect(
      fieldErrors(() => MemorySearchRequest.create({ guildId: '1', query: 'x', k: 2.5 }))[0].field,
    ).toBe('k');
  });

  it('refuses an unknown layer, a bad snowflake, an empty query', () => {
    const errs = fieldErrors(() =>
      MemorySearchRequest.create({ guildId: 'abc', query: '', layers: ['archive', 'nope'] }),
    );
    expect(errs.map((e) => e.field).sort()).toEqual(['guildId', 'layers', 'query']);
  });

  it('names the known strategies when the strategy is unknown', () => {
    const [err] = fieldErrors(() =>
      MemoryContextRequest.create({ guildId: '1', channelId: '2', strategy: 'deep-think' }),
    );
    expect(err.field).toBe('strategy');
    for (const s of CONTEXT_STRATEGIES) expect(err.messages[0]).toContain(s);
  });

  it('accepts every strategy and an optional highlight kind', () => {
    for (const strategy of CONTEXT_STRATEGIES) {
      expect(MemoryContextRequest.create({ guildId: '1', channelId: '2', strategy }).strategy).toBe(
        strategy,
      );
    }
    expect(
      fieldErrors(() =>
        MemoryHighlightAddRequest.create({
          guildId: '1',
          channelId: '2',
          messageId: '3',
          kind: 'x',
        }),
      )[0].field,
    ).toBe('kind');
  });
});
