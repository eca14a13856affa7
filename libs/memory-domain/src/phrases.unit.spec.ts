import {
  coalescePhrases,
  distinctPeople,
  mergeOccurrences,
  phraseLoreText,
  phraseShingles,
} from './phrases';

const occ = (messageId: string, authorId: string) => ({ messageId, authorId });

describe('repeated phrases', () => {
  it('shingles are three-word windows with at least two content words, quotes and links left out', () => {
    expect(phraseShingles("It's always DNS, again")).toEqual([
      'its always dns',
      'always dns again',
    ]);
    expect(phraseShingles('and then the')).toEqual([]);
    expect(phraseShingles('> quoted line here\nhttps://x.io/a big red button')).toEqual([
      'big red button',
    ]);
  });

  it('merges uses once per message, keeping the first use of every person first', () => {
    const many = Array.from({ length: 20 }, (_, i) => occ(`m${i}`, 'ann'));
    const merged = mergeOccurrences(many, [occ('b1', 'ben'), occ('m0', 'ann')]);
    expect(merged).toHaveLength(16);
    expect(distinctPeople(merged)).toBe(2);
  });

  it('coalesces phrases three people said, stitched where they overlap; two people are not lore', () => {
    const three = [occ('1', 'ann'), occ('2', 'ben'), occ('3', 'cat')];
    const found = coalescePhrases([
      { phrase: 'ship it on', occurrences: three },
      { phrase: 'it on friday', occurrences: three },
      { phrase: 'pizza on friday', occurrences: [occ('4', 'ann'), occ('5', 'ben')] },
    ]);
    expect(found).toEqual([
      {
        phrase: 'ship it on friday',
        shingles: ['ship it on', 'it on friday'],
        messageIds: ['1', '2', '3'],
        authorIds: ['ann', 'ben', 'cat'],
      },
    ]);
    expect(phraseLoreText(found[0])).toBe(
      'Recurring phrase in the group: "ship it on friday" (said by 3 people)',
    );
  });
});
