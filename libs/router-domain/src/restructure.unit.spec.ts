import { archivedName, channelSlug, parseRestructureStep } from './restructure';

describe('parseRestructureStep', () => {
  it.each([
    ['create #garden-planning', { kind: 'create_channel', name: 'garden-planning' }],
    ['make a new channel named seed-swap', { kind: 'create_channel', name: 'seed-swap' }],
    ['rename #memes to #fun', { kind: 'rename_channel', from: 'memes', to: 'fun' }],
    ['archive #old-events', { kind: 'archive_channel', name: 'old-events' }],
    ['archive the old-events channel', { kind: 'archive_channel', name: 'old-events' }],
    ['move #fun to Social', { kind: 'move_channel', name: 'fun', category: 'Social' }],
    [
      'move #fun into the Social category',
      { kind: 'move_channel', name: 'fun', category: 'Social' },
    ],
    ['create role gardeners', { kind: 'create_role', name: 'gardeners' }],
    ['make a role for the gardeners', { kind: 'create_role', name: 'gardeners' }],
  ])('%s', (text, step) => {
    expect(parseRestructureStep(text)).toEqual({ ok: true, step });
  });

  it('refuses words that are no step, saying what a step is', () => {
    const parsed = parseRestructureStep('merge #memes into #general');
    expect(parsed).toEqual({
      ok: false,
      error: expect.stringContaining('create, rename, archive or move'),
    });
  });

  it('slugs channel names as Discord keeps them', () => {
    expect(channelSlug('#Garden Planning!')).toBe('garden-planning');
    expect(archivedName('old')).toBe('archived-old');
    expect(archivedName('archived-old')).toBe('archived-old');
  });
});
