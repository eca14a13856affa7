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
  it('refuses a k outside 1..50 or not an integer, naming k', () => {
    expect(MemorySearchRequest.create({ guildId: '1', query: 'x', k: 50 }).k).toBe(50);
    expect(MemorySearchRequest.create({ guildId: '1', query: 'x' }).k).toBeUndefined();
    for (const k of [0, -1, 51, 1000, 2.5, '5']) {
      const errs = fieldErrors(() => MemorySearchRequest.create({ guildId: '1', query: 'x', k }));
      expect(errs.map((e) => e.field)).toEqual(['k']);
    }
  });

  it('refuses a blank query, a repeated layer, an impossible date, until before since', () => {
    const field = (extra: Record<string, unknown>) =>
      fieldErrors(() => MemorySearchRequest.create({ guildId: '1', query: 'x', ...extra })).map(
        (e) => e.field,
      );
    expect(field({ query: '   ' })).toEqual(['query']);
    expect(field({ layers: ['archive', 'archive'] })).toEqual(['layers']);
    expect(field({ layers: 'archive' })).toEqual(['layers']);
    expect(field({ since: '2026-02-30T00:00:00Z' })).toEqual(['since']);
    expect(field({ until: 'last tuesday' })).toEqual(['until']);
    expect(field({ since: '2026-05-02T00:00:00Z', until: '2026-05-01T00:00:00Z' })).toEqual([
      'until',
    ]);
    expect(field({ channelId: 12, authorId: 'bob' })).toEqual(['channelId', 'authorId']);
    const ok = MemorySearchRequest.create({
      guildId: '1',
      query: 'x',
      since: '2026-05-01',
      until: '2026-05-01T10:00:00Z',
    });
    expect(ok.until).toBe('2026-05-01T10:00:00Z');
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
