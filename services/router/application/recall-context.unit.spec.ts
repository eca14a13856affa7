import { withRecalled } from './recall-context';

describe('withRecalled', () => {
  const own = '## Live transcript\n[#1] Ada: so, dinner?\n[#1] Bo: do you remember the venue';

  it('adds what the recall lens found and the turn’s lens did not hold, under its heading', () => {
    const recalled = [
      '## From the archive',
      '[#1 2026-11-20 18:00] Ada: we decided on the old mill as the venue',
      '## Live transcript',
      '[#1] Bo: do you remember the venue',
    ].join('\n');
    expect(withRecalled(own, recalled)).toBe(
      `${own}\n\n## From the archive\n[#1 2026-11-20 18:00] Ada: we decided on the old mill as the venue`,
    );
  });

  it('keeps the context as it is when the recall lens found nothing new', () => {
    expect(withRecalled(own, '## Live transcript\n[#1] Ada: so, dinner?')).toBe(own);
    expect(withRecalled(own, '')).toBe(own);
    expect(withRecalled('', '## Highlights (verbatim)\n[#1 x] Cy: pizza')).toBe(
      '## Highlights (verbatim)\n[#1 x] Cy: pizza',
    );
  });
});
