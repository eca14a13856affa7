import {
  CANONICAL_DISPOSITIONS,
  agentInput,
  learnedWeight,
  mergePersona,
  neverDoBroken,
  personaChanges,
  personaProblems,
  reactionSignal,
  replySignal,
  routeFromInputs,
  seedPersona,
  withPersona,
  type DecisionInputs,
  type PersonaContent,
} from './index';

const base = (over: Partial<PersonaContent> = {}): PersonaContent => ({
  ...seedPersona({ id: 'dit', name: 'Dit', voices: ['playful'], bannedPhrases: ['as an AI'] }),
  ...over,
});

describe('persona content', () => {
  it('seeds from the YAML agent with default learning', () => {
    expect(
      seedPersona(
        { id: 'dit', name: 'Dit', voices: ['sharp'], weights: { 'roast-back': 0.5 } },
        { neverVoices: ['sincere'], neverDo: ['x'], toneBounds: { energy: [0.2, 0.4] } },
      ),
    ).toEqual({
      voices: { eligible: ['sharp'], never: ['sincere'] },
      bannedPhrases: [],
      neverDo: ['x'],
      toneBounds: { formality: [0, 1], energy: [0.2, 0.4] },
      dispositionWeights: { 'roast-back': 0.5 },
      learning: { enabled: true, rate: 0.05, bounds: [0.5, 2] },
    });
  });

  it('merges given fields over the active content, nested ones by key', () => {
    const active = base({ dispositionWeights: { a: 1.5 } });
    const next = mergePersona(active, {
      voices: { never: ['sincere'], eligible: undefined },
      dispositionWeights: { b: 0.5 },
      learning: { enabled: false },
      toneBounds: { formality: [0.1, 0.3] },
    });
    expect(next.voices).toEqual({ eligible: ['playful'], never: ['sincere'] });
    expect(next.dispositionWeights).toEqual({ a: 1.5, b: 0.5 });
    expect(next.learning).toEqual({ enabled: false, rate: 0.05, bounds: [0.5, 2] });
    expect(next.toneBounds).toEqual({ formality: [0.1, 0.3], energy: [0, 1] });
    expect(next.bannedPhrases).toEqual(['as an AI']);
    expect(mergePersona(next, { toneBounds: null }).toneBounds).toBeUndefined();
    expect(Object.keys(personaChanges(active, next)).sort()).toEqual([
      'dispositionWeights',
      'learning',
      'toneBounds',
      'voices',
    ]);
  });

  it('names the field of each problem', () => {
    const bad = base({
      toneBounds: { formality: [0.8, 0.2], energy: [0, 2] },
      learning: { enabled: true, rate: 0, bounds: [2, 1] },
      dispositionWeights: { a: -1 },
      voices: { eligible: ['playful'], never: ['playful'] },
    });
    expect(personaProblems(bad).map((p) => p.field)).toEqual([
      'toneBounds.formality',
      'toneBounds.energy',
      'learning.bounds',
      'learning.rate',
      'dispositionWeights.a',
      'voices',
    ]);
    expect(personaProblems(base())).toEqual([]);
  });
});

describe('learning', () => {
  const p = {
    dispositionWeights: { x: 1.9 },
    learning: { enabled: true, rate: 0.05, bounds: [0.5, 2] as [number, number] },
  };

  it('moves a weight by the rate and never outside the bounds', () => {
    expect(learnedWeight(p, 'y', 'positive')).toEqual({ from: 1, to: 1.05 });
    expect(learnedWeight(p, 'y', 'negative')).toEqual({ from: 1, to: 0.95 });
    let w = { ...p, dispositionWeights: { x: 1.9 } };
    for (let i = 0; i < 10; i++) {
      const m = learnedWeight(w, 'x', 'positive');
      if (!m) break;
      w = { ...w, dispositionWeights: { x: m.to } };
    }
    expect(w.dispositionWeights.x).toBe(2);
    expect(learnedWeight(w, 'x', 'positive')).toBeNull();
  });

  it('is frozen when learning is off', () => {
    expect(
      learnedWeight({ ...p, learning: { ...p.learning, enabled: false } }, 'x', 'negative'),
    ).toBeNull();
  });

  it('reads reactions and replies', () => {
    expect(reactionSignal('👍')).toBe('positive');
    expect(reactionSignal('👍🏽')).toBe('positive');
    expect(reactionSignal('👎')).toBe('negative');
    expect(reactionSignal('party:123')).toBeNull();
    expect(replySignal('haha good one')).toBe('positive');
    expect(replySignal('that is not funny, stop')).toBe('negative');
  });
});

describe('persona on the output and in the gates', () => {
  it('checks /pattern/ never-do entries on the output only', () => {
    expect(neverDoBroken('my secret plan is', ['/secret plan/i', 'be rude'])).toBe(
      '/secret plan/i',
    );
    expect(neverDoBroken('be rude', ['be rude'])).toBeNull();
    expect(neverDoBroken('x', ['/([/'])).toBeNull();
  });

  it('gates never voices and scores with the persona weights, replayably', () => {
    const agent = withPersona(
      { id: 'dit', name: 'Dit' },
      {
        agentId: 'dit',
        version: 7,
        ...base({ voices: { eligible: [], never: ['playful', 'sharp'] } }),
      },
    );
    const inputs: DecisionInputs = {
      trigger: 'reactive',
      mentioned: true,
      agent: agentInput(agent),
      presentUserIds: [],
      hour: 12,
      temperature: 0.7,
      personaVersion: agent.personaVersion,
      dispositionSet: 'x',
    };
    expect(inputs.agent.neverVoices).toEqual(['playful', 'sharp']);
    const d = routeFromInputs(CANONICAL_DISPOSITIONS, inputs, 'seed-1');
    for (const c of d.candidates) {
      const voice = CANONICAL_DISPOSITIONS.find((x) => x.id === c.dispositionId)!.voice;
      if (voice === 'playful' || voice === 'sharp') expect(c.score).toBe(0);
    }
    expect(
      routeFromInputs(CANONICAL_DISPOSITIONS, JSON.parse(JSON.stringify(inputs)), 'seed-1'),
    ).toEqual(d);
  });
});
