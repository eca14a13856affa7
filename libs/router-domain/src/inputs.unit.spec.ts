import {
  agentInput,
  CANONICAL_DISPOSITIONS,
  dispositionSetId,
  FOLLOWUP_BIASES,
  messageFeatures,
  routeFromInputs,
  seededRandom,
  TRIGGERS,
  type DecisionInputs,
} from './index';

const TEXTS = [
  'hi all',
  'remember the pizza night? lol',
  'no way, that is wrong',
  'what do you think, dit?',
  'x'.repeat(260),
  '',
];

/** Varied inputs, drawn from a seed. */
function inputsFor(i: number): DecisionInputs {
  const r = seededRandom(`inputs-${i}`);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const trigger = pick(TRIGGERS);
  const text = pick(TEXTS);
  return {
    trigger,
    mentioned: trigger !== 'speculative' && r() < 0.3,
    agent: agentInput({
      id: 'dit',
      name: 'Dit',
      ...(r() < 0.3 ? { voices: ['playful', 'deadpan', 'sharp'] as const } : {}),
      ...(r() < 0.3 ? { weights: { 'roast-back': 0.5, vibing: 2 } } : {}),
    }),
    ...(trigger === 'speculative'
      ? {}
      : {
          message: messageFeatures(text, { authorIsBot: r() < 0.1, addressedToOther: r() < 0.1 }),
        }),
    room: {
      ratePerMin: Math.round(r() * 1500) / 100,
      humansActive: Math.floor(r() * 5),
      botRun: Math.floor(r() * 4),
    },
    presentUserIds: ['1', '2', '3'].slice(0, Math.floor(r() * 4)),
    ...(r() < 0.7 ? { memory: { hits: Math.floor(r() * 4) } } : {}),
    ...(r() < 0.9 ? { budgetFraction: Math.round(r() * 1000) / 1000 } : {}),
    hour: Math.floor(r() * 24),
    temperature: pick([0, 0.4, 0.7, 1.2]),
    ...(trigger === 'self-followup' ? { bias: pick(FOLLOWUP_BIASES) } : {}),
    ...(trigger === 'interruption'
      ? {
          interruption: {
            action: pick(['abort', 'fold', 'continue'] as const),
            parentDispositionId: 'settle-debate',
          },
        }
      : {}),
    dispositionSet: dispositionSetId(CANONICAL_DISPOSITIONS),
  };
}

describe('exact replay', () => {
  it('1,000 decisions replay byte-identical from their stored inputs and seed', () => {
    const choices = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const inputs = inputsFor(i);
      const seed = `m${i}:dit`;
      const live = routeFromInputs(CANONICAL_DISPOSITIONS, inputs, seed);
      // What storage does to them: JSON in, JSON out.
      const stored = JSON.parse(JSON.stringify({ inputs, seed }));
      const again = routeFromInputs(
        JSON.parse(JSON.stringify(CANONICAL_DISPOSITIONS)),
        stored.inputs,
        stored.seed,
      );
      expect(JSON.stringify({ candidates: again.candidates, chosen: again.chosen })).toBe(
        JSON.stringify({ candidates: live.candidates, chosen: live.chosen }),
      );
      expect(again.dimensions).toEqual(live.dimensions);
      // The order a store lists the dispositions in does not matter.
      const reversed = routeFromInputs([...CANONICAL_DISPOSITIONS].reverse(), inputs, seed);
      expect(JSON.stringify(reversed.candidates)).toBe(JSON.stringify(live.candidates));
      expect(reversed.chosen).toBe(live.chosen);
      choices.add(live.chosen);
    }
    expect(choices.size).toBeGreaterThan(5);
  });

  it('names a disposition set by its content, not its order', () => {
    const id = dispositionSetId(CANONICAL_DISPOSITIONS);
    expect(id).toMatch(/^[0-9a-f]{28}$/);
    expect(dispositionSetId([...CANONICAL_DISPOSITIONS].reverse())).toBe(id);
    const changed = CANONICAL_DISPOSITIONS.map((d) =>
      d.id === 'vibing' ? { ...d, weight: 2 } : d,
    );
    expect(dispositionSetId(changed)).not.toBe(id);
  });

  it('a tie-break answer stored with the inputs wins when its candidate scored', () => {
    const inputs = { ...inputsFor(3), trigger: 'reactive' as const, mentioned: true };
    const live = routeFromInputs(CANONICAL_DISPOSITIONS, inputs, 's');
    const other = live.candidates.find((c) => c.score > 0 && c.dispositionId !== live.chosen)!;
    const picked = routeFromInputs(
      CANONICAL_DISPOSITIONS,
      { ...inputs, tieBreak: other.dispositionId },
      's',
    );
    expect(picked.chosen).toBe(other.dispositionId);
  });
});
