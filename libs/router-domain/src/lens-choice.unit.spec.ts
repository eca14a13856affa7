import { CONTEXT_STRATEGIES } from '@dirigent/contracts';
import {
  CANONICAL_DISPOSITIONS,
  chooseLens,
  OFF_AXIS_LENSES,
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

  it('adds the present users’ dossiers when a group is talking', () => {
    const quick = CANONICAL_DISPOSITIONS.find((d) => d.id === 'quick-react')!;
    expect(chooseLens(quick, { seed: 'x', temperature: 0, humansActive: 3 })).toEqual({
      lens: 'live+dossiers',
      swap: { from: 'live', to: 'live+dossiers', reason: 'room' },
    });
  });
});
