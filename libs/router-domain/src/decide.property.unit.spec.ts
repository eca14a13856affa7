import fc from 'fast-check';
import {
  CANONICAL_DISPOSITIONS,
  FOLLOWUP_BIASES,
  OUTPUT_SHAPES,
  REASONING_DEPTHS,
  SEARCH_POSTURES,
  TRIGGERS,
  VOICES,
  route,
  type AgentPersona,
  type Disposition,
  type RouteInput,
} from './index';

const disposition: fc.Arbitrary<Disposition> = fc.record(
  {
    id: fc.stringMatching(/^[a-z]{1,8}$/),
    name: fc.string(),
    reasoningDepth: fc.constantFrom(...REASONING_DEPTHS),
    contextStrategy: fc.constantFrom('live', 'none', 'serendipity'),
    voice: fc.constantFrom(...VOICES),
    outputShape: fc.constantFrom(...OUTPUT_SHAPES),
    searchPosture: fc.constantFrom(...SEARCH_POSTURES),
    riskAppetite: fc.constantFrom('safe' as const, 'spicy' as const),
    speculativeOnly: fc.boolean(),
    weight: fc.double({ min: 0, max: 5, noNaN: true }),
  },
  {
    requiredKeys: [
      'id',
      'name',
      'reasoningDepth',
      'contextStrategy',
      'voice',
      'outputShape',
      'searchPosture',
      'riskAppetite',
    ],
  },
);

const dispositions = fc.array(disposition, { maxLength: 12 }).map((extra) => {
  const byId = new Map(CANONICAL_DISPOSITIONS.map((d) => [d.id, d]));
  for (const d of extra) byId.set(d.id, d);
  return [...byId.values()];
});

const agent: fc.Arbitrary<AgentPersona> = fc.record({
  id: fc.constant('dit'),
  name: fc.constant('Dit'),
  discordUserId: fc.constant('42'),
  voices: fc.subarray([...VOICES]),
});

const input: fc.Arbitrary<RouteInput> = fc.record(
  {
    trigger: fc.constantFrom(...TRIGGERS),
    agent,
    content: fc.string({ maxLength: 300 }),
    authorIsBot: fc.boolean(),
    mentioned: fc.boolean(),
    budgetFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    bias: fc.constantFrom(...FOLLOWUP_BIASES),
    seed: fc.string({ minLength: 1, maxLength: 40 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  },
  { requiredKeys: ['trigger', 'agent', 'mentioned', 'seed'] },
);

const byId = (ds: Disposition[], id: string) => ds.find((d) => d.id === id);

describe('route (properties)', () => {
  it('same input and seed → same choice', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        expect(route(ds, i)).toEqual(route(ds, { ...i }));
      }),
    );
  });

  it('an explicit mention is never answered with silence', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        const d = route(ds, { ...i, mentioned: true });
        expect(d.dimensions.outputShape).not.toBe('silent');
      }),
    );
  });

  it('a speculative-only disposition is never chosen outside a speculative turn', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        fc.pre(i.trigger !== 'speculative');
        const chosen = byId(ds, route(ds, i).chosen);
        expect(chosen?.speculativeOnly ?? false).toBe(false);
      }),
    );
  });

  it('a speculative turn chooses only speculative-only dispositions or silence', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        const d = route(ds, { ...i, trigger: 'speculative', mentioned: false });
        const chosen = byId(ds, d.chosen);
        expect(chosen?.speculativeOnly === true || d.dimensions.outputShape === 'silent').toBe(
          true,
        );
      }),
    );
  });

  it('a weight of 0 is never chosen', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        const zeroed = ds.map((d) => (d.id === 'quick-react' ? { ...d, weight: 0 } : d));
        fc.pre(!i.mentioned);
        expect(route(zeroed, i).chosen).not.toBe('quick-react');
      }),
    );
  });

  it('the chosen disposition carries a positive score unless nothing was eligible', () => {
    fc.assert(
      fc.property(dispositions, input, (ds, i) => {
        const d = route(ds, i);
        const any = d.candidates.some((c) => c.score > 0);
        if (any)
          expect(d.candidates.find((c) => c.dispositionId === d.chosen)!.score).toBeGreaterThan(0);
      }),
    );
  });
});
