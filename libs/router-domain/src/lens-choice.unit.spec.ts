import { CONTEXT_STRATEGIES } from '@dirigent/contracts';
import {
  CANONICAL_DISPOSITIONS,
  chooseLens,
  OFF_AXIS_LENSES,
  RECALL_LENSES,
  route,
  TRIGGERS,
  type AgentPersona,
} from './index';

const dit: AgentPersona = { id: 'dit', name: 'Dit' };

describe('lenses', () => {
  it('every context strategy is reached by a canonical disposition or the off-axis swap', () => {
    const reached = new Set<string>();
    const texts = ['hi', 'remember last time? lol', 'you are wrong, debate me', 'x'.repeat(300)];
    for (const trigger of TRIGGERS)
      for (const mentioned of [false, true])
        for (const humansActive of [0, 4])
          for (const content of texts)
            for (let i = 0; i < 40; i++) {
              const d = route(CANONICAL_DISPOSITIONS, {
                trigger,
                agent: dit,
                mentioned,
                content,
                room: { ratePerMin: 1, humansActive, botRun: 0 },
                seed: `${trigger}-${i}`,
                temperature: 1,
              });
              reached.add(d.dimensions.contextStrategy);
            }
    expect([...reached].sort()).toEqual([...CONTEXT_STRATEGIES].sort());
  });

  it('every off-axis lens is a context strategy', () => {
    for (const lenses of Object.values(OFF_AXIS_LENSES))
      for (const l of lenses) expect(CONTEXT_STRATEGIES).toContain(l);
  });

  it('swaps seeded and recorded, never for model-free shapes nor at temperature 0', () => {
    const quick = CANONICAL_DISPOSITIONS.find((d) => d.id === 'quick-react')!;
    const swaps = Array.from({ length: 400 }, (_, i) =>
      chooseLens(quick, { seed: `s${i}`, temperature: 0.7 }),
    ).filter((c) => c.swap);
    expect(swaps.length).toBeGreaterThan(20);
    expect(swaps.length).toBeLessThan(110);
    for (const c of swaps) expect(c.swap).toEqual({ from: 'live', to: c.lens, reason: 'off-axis' });
    expect(chooseLens(quick, { seed: 's1', temperature: 0.7 })).toEqual(
      chooseLens(quick, { seed: 's1', temperature: 0.7 }),
    );
    const vibing = CANONICAL_DISPOSITIONS.find((d) => d.id === 'vibing')!;
    for (let i = 0; i < 100; i++)
      expect(chooseLens(vibing, { seed: `s${i}`, temperature: 1, humansActive: 5 })).toEqual({
        lens: 'narrow-live',
      });
    expect(chooseLens(quick, { seed: 's1', temperature: 0 })).toEqual({ lens: 'live' });
  });

  it('on a memory question swaps, seeded as ever, only to a lens that searches the topic', () => {
    const quick = CANONICAL_DISPOSITIONS.find((d) => d.id === 'quick-react')!;
    const seeds = Array.from({ length: 400 }, (_, i) => `s${i}`);
    const plain = seeds.map((seed) => chooseLens(quick, { seed, temperature: 0.7 }));
    const asked = seeds.map((seed) => chooseLens(quick, { seed, temperature: 0.7, recall: true }));
    // The same seeds swap: the draw is unchanged, only the pool is the recall one.
    expect(asked.map((c) => !!c.swap)).toEqual(plain.map((c) => !!c.swap));
    const swapped = asked.filter((c) => c.swap);
    expect(swapped.length).toBeGreaterThan(20);
    for (const c of swapped) {
      expect(RECALL_LENSES).toContain(c.lens);
      expect(c.swap).toEqual({ from: 'live', to: c.lens, reason: 'off-axis' });
    }
    expect(new Set(swapped.map((c) => c.lens)).size).toBe(RECALL_LENSES.length);
    for (const l of RECALL_LENSES) expect(CONTEXT_STRATEGIES).toContain(l);
    // Through the router: a human's "do you remember …" is never read through a vibe lens.
    for (let i = 0; i < 300; i++) {
      const d = route(CANONICAL_DISPOSITIONS, {
        trigger: 'reactive',
        agent: dit,
        mentioned: true,
        content: 'do you remember what we decided about the venue',
        seed: `m${i}`,
        temperature: 1,
      });
      if (d.lensSwap?.reason === 'off-axis') expect(RECALL_LENSES).toContain(d.lensSwap.to);
    }
  });

  it('adds the present users’ dossiers when a group is talking', () => {
    const quick = CANONICAL_DISPOSITIONS.find((d) => d.id === 'quick-react')!;
    expect(chooseLens(quick, { seed: 'x', temperature: 0, humansActive: 3 })).toEqual({
      lens: 'live+dossiers',
      swap: { from: 'live', to: 'live+dossiers', reason: 'room' },
    });
  });
});
