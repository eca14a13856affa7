import {
  FORGOTTEN_QUOTE,
  mentionsForgotten,
  quoteHashes,
  quotesForgotten,
  scrubForgotten,
  withoutForgotten,
} from './forgotten';

describe('a forgotten user in text written by others', () => {
  const cat = {
    userId: '123456789',
    names: ['Cat Moreau', 'Cat', 'Al'],
    quotes: quoteHashes(['I just moved to Zanzibar with my quokka and two cats']),
  };

  it('is found by name, mention, id or a quote of six words', () => {
    expect(mentionsForgotten('Ann often hikes with Cat.', cat)).toBe(true);
    expect(mentionsForgotten("Ann and Cat Moreau's band", cat)).toBe(true);
    expect(mentionsForgotten('thanks <@123456789>!', cat)).toBe(true);
    expect(mentionsForgotten('Someone moved to Zanzibar with my quokka and two cats', cat)).toBe(
      true,
    );
  });

  it('is not found in words that merely contain a name or share a few words', () => {
    expect(mentionsForgotten('Ann likes to categorise her cats', cat)).toBe(false);
    expect(mentionsForgotten('Ann went to the mall', cat)).toBe(false);
    expect(mentionsForgotten('Ann moved to Zanzibar last year', cat)).toBe(false);
    expect(mentionsForgotten('', cat)).toBe(false);
  });

  it('keeps hashes, not words', () => {
    expect(cat.quotes.join(' ')).not.toMatch(/zanzibar|quokka/i);
    expect(quotesForgotten('he said: moved to Zanzibar with my quokka!', cat)).toBe(true);
    expect(quotesForgotten('he moved to Zanzibar with his quokka', cat)).toBe(false);
  });

  it('is scrubbed to "someone"', () => {
    expect(scrubForgotten('Ann met Cat Moreau and <@!123456789> at the category fair', cat)).toBe(
      'Ann met someone and someone at the category fair',
    );
    expect(withoutForgotten('Cat: moved to Zanzibar with my quokka and two cats', cat)).toBe(
      FORGOTTEN_QUOTE,
    );
    expect(withoutForgotten('Cat is nice', cat)).toBe('someone is nice');
  });
});
