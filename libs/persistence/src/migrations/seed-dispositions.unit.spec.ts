import { CANONICAL_DISPOSITIONS, type Disposition } from '@dirigent/router-domain';
import { insertDispositionsSql } from './seed-dispositions';

describe('insertDispositionsSql', () => {
  it('seeds every canonical disposition once and leaves a row already there as it is', () => {
    const sql = insertDispositionsSql(CANONICAL_DISPOSITIONS);
    for (const d of CANONICAL_DISPOSITIONS) {
      expect(sql.split(`('${d.id}', `)).toHaveLength(2);
    }
    expect(sql).toMatch(/^insert into "dispositions" .* on conflict \("id"\) do nothing;$/s);
  });

  it('writes the hint as JSON, the flag and weight as literals, and escapes quotes', () => {
    const d: Disposition = {
      ...CANONICAL_DISPOSITIONS.find((x) => x.id === 'late-night-musing')!,
      id: 'dits-take',
      name: "Dit's take",
      weight: 2.5,
    };
    expect(insertDispositionsSql([d])).toContain(
      `('dits-take', 'Dit''s take', 'high', 'serendipity', 'observational', 'burst', ` +
        `'broad-scan', 'safe', true, '${JSON.stringify(d.selfFollowupHint)}', 2.5)`,
    );
  });
});
