import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { SEEDED_DISPOSITIONS } from './Migration20261123160000_router';
import { ROAST_BACK_HINT } from './Migration20261128110000_roast_back_callback_later';
import { insertDispositionsSql, type SeededDisposition } from './seed-dispositions';

describe('insertDispositionsSql', () => {
  it('seeds every disposition once and leaves a row already there as it is', () => {
    const sql = insertDispositionsSql(SEEDED_DISPOSITIONS);
    for (const d of SEEDED_DISPOSITIONS) {
      expect(sql.split(`('${d.id}', `)).toHaveLength(2);
    }
    expect(sql).toMatch(/^insert into "dispositions" .* on conflict \("id"\) do nothing;$/s);
  });

  it('writes the hint as JSON, the flag and weight as literals, and escapes quotes', () => {
    const d: SeededDisposition = {
      ...SEEDED_DISPOSITIONS.find((x) => x.id === 'late-night-musing')!,
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

describe('the seeded dispositions', () => {
  // The migrations carry their own rows; the code's canonical set must be what they leave,
  // so a disposition added or changed in code without a migration fails here.
  it('are, after every migration, the canonical set of @dirigent/router-domain', () => {
    const seeded = SEEDED_DISPOSITIONS.map((d) =>
      d.id === 'roast-back' && !d.selfFollowupHint
        ? { ...d, selfFollowupHint: ROAST_BACK_HINT }
        : d,
    );
    expect(seeded).toEqual(CANONICAL_DISPOSITIONS);
  });
});
