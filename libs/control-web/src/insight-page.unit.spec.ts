import type { RouterDecision } from '@dirigent/contracts';
import type { GuildView } from './control-data';
import { decisionsPage, memoryPage } from './insight-page';

const guilds: GuildView[] = [{ guildId: '7', name: 'Guild <7>', channels: [] }];
const at = '2026-11-23T10:00:00.000Z';

describe('memory and decision-log tabs', () => {
  it('escapes remembered text and says when memory did not answer', () => {
    const html = memoryPage(guilds, {
      guildId: '7',
      error: null,
      live: [{ id: '1', channelId: '9', authorId: '3', text: '<img src=x onerror=alert(1)>', at }],
      epochs: [],
      highlights: [],
      dossiers: [],
      query: '"><script>',
      hits: [],
    });
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(html).toContain('Guild &lt;7&gt;');
    const down = memoryPage(guilds, {
      guildId: '7',
      error: 'TIMEOUT: no answer',
      live: [],
      epochs: [],
      highlights: [],
      dossiers: [],
      query: '',
      hits: null,
    });
    expect(down).toContain('Memory did not answer (TIMEOUT: no answer)');
  });

  it('shows each decision with its scores, seed and the chosen one marked', () => {
    const d: RouterDecision = {
      decisionId: 'd-1',
      guildId: '7',
      channelId: '9',
      agentId: 'dit',
      trigger: 'reactive',
      candidates: [
        { dispositionId: 'silent-listen', score: 0.2 },
        { dispositionId: 'quick-react', score: 0.9 },
      ],
      chosen: 'quick-react',
      seed: '123:dit',
      dimensions: {
        reasoningDepth: 'low',
        contextStrategy: 'live',
        voice: 'playful',
        outputShape: 'single-line',
        searchPosture: 'none',
        riskAppetite: 'safe',
      },
      subagents: [],
      beats: [{ text: '<b>hi</b>' }],
      latencyMs: 12,
      costUsd: 0,
      models: ['offline'],
      at,
    };
    const html = decisionsPage(guilds, {
      filter: { guildId: '7', trigger: 'reactive' },
      error: null,
      decisions: [d],
    });
    expect(html).toContain('<li class="chosen">quick-react 0.900</li>');
    expect(html).toContain('<code>123:dit</code>');
    expect(html).toContain('&lt;b&gt;hi&lt;/b&gt;');
    expect(html).toContain('<option value="reactive" selected>');
    expect(html).not.toContain('data-field="lineage"');
    const why = decisionsPage(guilds, {
      filter: { guildId: '7' },
      error: null,
      decisions: [
        {
          ...d,
          trigger: 'speculative',
          lineage: {
            job: 'speculative-turn',
            trigger: 'all',
            causeId: 'timer-1',
            parentId: 'd-0',
            via: ['timer', 'quiet'],
          },
        },
      ],
    });
    expect(why).toContain(
      'speculative-turn · all (timer, quiet) · cause <code>timer-1</code> · scheduled by <a href="#decision-d-0">',
    );
    expect(
      decisionsPage(guilds, { filter: { guildId: '7' }, error: 'x', decisions: [] }),
    ).toContain('The router did not answer (x)');
  });
});
