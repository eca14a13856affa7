import { askedWords, onlyAsks, overlap } from './offline-words';

describe('the offline model’s words', () => {
  it('matches words by their stems, whatever their inflection', () => {
    expect(overlap('I am bringing lemonade', askedWords('what would I bring?'))).toBe(1);
    expect(overlap('The picnics start at noon', askedWords('when does the picnic start?'))).toBe(2);
    expect(overlap('we planned the sandwiches', askedWords('plan a sandwich'))).toBe(2);
    expect(overlap('the class starts', askedWords('classes'))).toBe(1);
  });

  it('asks about the content words of a message, not the name it calls its answerer by', () => {
    expect([...askedWords('Dit, where did I say the picnic was?', 'Dit')]).toEqual(['picnic']);
    expect(overlap('We are bringing picnics to the park', askedWords('bring a picnic'))).toBe(2);
  });

  it('tells a line that only asks from one that also says something', () => {
    expect(onlyAsks('Where is the picnic again?')).toBe(true);
    expect(onlyAsks('Why? Who said so?')).toBe(true);
    expect(onlyAsks('I am going to Lisbon in May, any tips?')).toBe(false);
    expect(onlyAsks('Hello agents, what shall we build today?')).toBe(true);
    expect(onlyAsks('Hello everyone! What shall we build?')).toBe(true);
    expect(onlyAsks('Hello everyone! I am planning a trip to Lisbon, any tips?')).toBe(false);
    expect(onlyAsks('Hello everyone!')).toBe(false);
  });
});
