import { personasPage, type PersonaView } from './persona-page';
import { weightsChartSvg } from './persona-chart';

const at = '2026-11-28T03:00:00.000Z';
const dit: PersonaView = {
  agentId: 'dit',
  version: 3,
  cause: 'learning',
  at,
  voices: { eligible: ['deadpan'], never: ['sincere'] },
  bannedPhrases: ['<as an AI>'],
  neverDo: [],
  dispositionWeights: { 'quick-react': 1.1 },
  learning: { enabled: true, rate: 0.05, bounds: [0.5, 2] },
};

describe('persona tab', () => {
  it('renders fields, versions with rollback, the chart and the signals (escaped)', () => {
    const html = personasPage({
      error: null,
      personas: [dit],
      selected: dit,
      history: {
        agentId: 'dit',
        versions: [
          { version: 1, at, cause: 'seed', dispositionWeights: {} },
          {
            version: 2,
            at,
            cause: 'learning',
            causeId: '42',
            dispositionWeights: { 'quick-react': 1.05 },
          },
          {
            version: 3,
            at,
            cause: 'learning',
            causeId: '43',
            dispositionWeights: { 'quick-react': 1.1 },
          },
        ],
        signals: [
          {
            messageId: '43',
            signal: 'reaction:7:👍',
            polarity: 'positive',
            dispositionId: 'quick-react',
            from: 1.05,
            to: 1.1,
            version: 3,
            at,
          },
          {
            messageId: '44',
            signal: 'reply:9',
            polarity: 'negative',
            dispositionId: 'quick-react',
            from: 0.5,
            to: 0.5,
            at,
          },
        ],
      },
    });
    expect(html).toContain('&lt;as an AI&gt;');
    expect(html).not.toContain('<as an AI>');
    expect(html).toContain('data-action="rollback-persona" data-agent="dit" data-version="1"');
    expect(html).toContain('<span class="badge">active</span>');
    expect(html).toContain('1.05 → 1.1');
    expect(html).toContain('(unmoved)');
    expect(html).toContain('<svg id="persona-chart"');
    expect(html).toContain('/dirigent/app.js');
  });

  it('says when the router does not answer, and when no weight has moved', () => {
    expect(
      personasPage({ error: 'TIMEOUT: x', personas: [], selected: null, history: null }),
    ).toContain('id="personas-error"');
    expect(weightsChartSvg([{ version: 1, at, dispositionWeights: {} }])).toContain(
      'persona-chart-empty',
    );
    const svg = weightsChartSvg([
      { version: 1, at, dispositionWeights: { a: 1 } },
      { version: 2, at, dispositionWeights: { a: 2 } },
    ]);
    expect((svg.match(/<circle/g) ?? []).length).toBe(2);
  });
});
