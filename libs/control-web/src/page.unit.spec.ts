import { describeChannel, initialChannelState } from '@dirigent/turn-domain';
import type { ChannelInfo } from './control-data';
import { channelBlock, controlPage, identityRows, loginPage } from './page';

function channel(mode: string, extra: Partial<ChannelInfo> = {}): ChannelInfo {
  const view = { ...describeChannel(initialChannelState('42')), mode } as ChannelInfo['view'];
  return {
    channelId: '42',
    guildId: '7',
    name: 'general',
    private: false,
    known: true,
    view,
    timeline: [],
    ...extra,
  };
}

describe('control page rendering', () => {
  it('offers none/chat/report for ordinary channels, a locked badge for work and discussion', () => {
    const chat = channelBlock(channel('chat'), new Map());
    expect(chat).toContain('<select id="mode-42"');
    expect(chat).toMatch(/<option value="report">/);
    for (const mode of ['work', 'discussion']) {
      const html = channelBlock(channel(mode), new Map());
      expect(html).not.toContain('id="mode-42"');
      expect(html).toContain(`badge mode-${mode} locked`);
    }
  });

  it('names the current speaker and the order by registered names and escapes everything', () => {
    const c = channel('chat', { name: '<b>x</b>' });
    const view = { ...c.view, speakers: ['a1', 'a2'], currentSpeaker: 'a2' };
    const html = channelBlock({ ...c, view }, new Map([['a2', 'Zed & co']]));
    expect(html).toContain('#&lt;b&gt;x&lt;/b&gt;');
    expect(html).toContain('<li aria-current="true">Zed &amp; co</li>');
    expect(html).toContain('<li>a1</li>');
  });

  it('labels every registry input and shows Re-scan only when padded-cell is detected', () => {
    const rows = identityRows([{ discordUserId: '1', agentId: 'ada', agentName: null }]);
    expect(rows).toContain('<label class="visually-hidden" for="agent-1">');
    expect(rows).toContain('<label class="visually-hidden" for="name-1">');
    const model = {
      identities: [],
      guilds: { guilds: [], discordError: null },
      deadLetters: [],
    };
    expect(controlPage({ ...model, egoDetected: false })).not.toContain('Re-scan padded-cell');
    expect(controlPage({ ...model, egoDetected: true })).toContain('Re-scan padded-cell');
  });

  it('shows a login error escaped', () => {
    expect(loginPage('<nope>')).toContain('&lt;nope&gt;');
  });
});
