import type { LearningHistoryResult } from '@dirigent/contracts';
import { ReplyFailure } from './control-data';
import { validWeights, type LearningTab } from './learning-data';
import { learningPage } from './learning-page';
import type { PersonaView } from './persona-page';

const dit: PersonaView = {
  agentId: 'dit',
  version: 4,
  cause: 'admin',
  at: '2026-12-07T01:00:00.000Z',
  voices: { eligible: [], never: [] },
  bannedPhrases: [],
  neverDo: [],
  dispositionWeights: { 'roast-back': 0.8 },
  learning: { enabled: true, rate: 0.1, bounds: [0.5, 2] },
};

const history: LearningHistoryResult = {
  baseline: { 'roast-back': 0.8 },
  bounds: [0.5, 2],
  engagement: [
    {
      contextClass: 'heated',
      dispositionId: 'roast-back',
      posts: 4,
      engaged: 1,
      ignored: 2,
      negative: 1,
      signals: { ignored: 2, reaction: 2, 'laughed-<later>': 1 },
    },
    {
      contextClass: 'lull',
      dispositionId: 'roast-back',
      posts: 3,
      engaged: 3,
      ignored: 0,
      negative: 0,
      signals: { reaction: 3 },
    },
  ],
  steps: [
    {
      at: '2026-12-07T01:10:00.000Z',
      contextClass: 'lull',
      dispositionId: 'roast-back',
      signal: 'reaction',
      delta: 0.1,
      adjustment: 0.1,
      effective: 0.9,
    },
    {
      at: '2026-12-07T01:20:00.000Z',
      contextClass: 'lull',
      dispositionId: 'roast-back',
      signal: 'quote',
      delta: 0.1,
      adjustment: 0.2,
      effective: 1,
    },
  ],
};

const tab = (over: Partial<LearningTab> = {}): LearningTab => ({
  guilds: [{ guildId: '111', name: 'Guild <one>', channels: [] }],
  guildId: '111',
  agents: [dit],
  persona: dit,
  dispositions: ['factual-recall', 'roast-back'],
  history,
  error: null,
  ...over,
});

describe('learning tab', () => {
  it('shows engagement percentages per mood and disposition, in mood order, escaped', () => {
    const html = learningPage(tab());
    const lull = html.indexOf('data-class="lull"');
    const heated = html.indexOf('data-class="heated"');
    expect(lull).toBeGreaterThan(0);
    expect(heated).toBeGreaterThan(lull);
    const row = html.slice(heated, html.indexOf('</tr>', heated));
    expect(row).toContain('data-field="posts">4<');
    expect(row).toContain('data-field="engaged">25%<');
    expect(row).toContain('data-field="ignored">50%<');
    expect(row).toContain('data-field="negative">25%<');
    expect(row).toContain('0.800 <span class="muted">(baseline)</span>');
    expect(row).toContain('laughed-&lt;later&gt; 1');
    expect(html.slice(lull, html.indexOf('</tr>', lull))).toContain('data-field="weight">1.000<');
    expect(html).toContain('Guild &lt;one&gt;');
  });

  it('draws the learned weight over time where learning moved it, a dot per step', () => {
    const html = learningPage(tab());
    const svg = html.slice(
      html.indexOf('<svg id="learning-chart-lull"'),
      html.indexOf('</svg>') + 6,
    );
    expect(svg).toContain('<g data-disposition="roast-back"><polyline');
    // The weight before the first step, then one dot per step.
    expect((svg.match(/<circle/g) ?? []).length).toBe(3);
    expect(svg).toContain('roast-back: 0.800 before learning moved it');
    expect(svg).toContain('(quote +0.100)');
    expect(html).toContain('id="learning-chart-heated-empty"');
    expect(html).not.toContain('id="learning-chart-heated"');
  });

  it("prefills the what-if form with the persona's weights for every disposition", () => {
    const html = learningPage(tab());
    expect(html).toContain('<form id="whatif" class="filters" data-guild="111" data-agent="dit"');
    expect(html).toMatch(/id="w-roast-back"[^>]*data-initial="0.8" value="0.8"/);
    expect(html).toMatch(/id="w-factual-recall"[^>]*value="1"/);
    expect(html).toContain('data-action="whatif-run"');
    expect(html).toContain('data-action="whatif-save"');
  });

  it('says so when the router does not answer or there is no guild', () => {
    expect(learningPage(tab({ error: 'TIMEOUT: <no reply>', history: null }))).toContain(
      'The router did not answer (TIMEOUT: &lt;no reply&gt;)',
    );
    expect(learningPage(tab({ guildId: null }))).toContain('The moderator bot is in no guild.');
  });
});

describe('validWeights', () => {
  it('reads numbers typed as text', () => {
    expect(validWeights({ 'roast-back': '1.25', 'factual-recall': 0 })).toEqual({
      'roast-back': 1.25,
      'factual-recall': 0,
    });
  });

  it('names every bad entry as a field error, all at once', () => {
    let err: unknown;
    try {
      validWeights({ 'roast-back': 'lots', 'factual-recall': '', 'Bad Id': 1, ok: 1001 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ReplyFailure);
    const f = err as ReplyFailure;
    expect(f.code).toBe('BAD_REQUEST');
    expect((f.details as { field: string }[]).map((d) => d.field)).toEqual([
      'weights.roast-back',
      'weights.factual-recall',
      'weights.Bad Id',
      'weights.ok',
    ]);
    expect(() => validWeights({})).toThrow('invalid weights');
    expect(() => validWeights('x')).toThrow('invalid weights');
  });
});
