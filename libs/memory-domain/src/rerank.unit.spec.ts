import { parseRerank, reorder, rerankPrompt } from './rerank';

describe('rerank', () => {
  it('numbers the passages with speaker and date', () => {
    const prompt = rerankPrompt('When did Tom paint?', [
      { text: 'back to oils\nevery evening', author: 'Tom', at: Date.UTC(2026, 4, 3) },
      { text: 'nice weather' },
    ]);
    expect(prompt).toContain('Question: When did Tom paint?');
    expect(prompt).toContain('[1] Tom (2026-05-03): back to oils every evening');
    expect(prompt).toContain('[2] someone: nice weather');
  });

  it('reads the order, keeping numbers in range once each', () => {
    expect(parseRerank('{"order": [3, 1, 3, 9, "2"]}', 3)).toEqual([2, 0, 1]);
    expect(parseRerank('sure: ```{"order":[2]}```', 2)).toEqual([1]);
  });

  it('has no order for an answer without one', () => {
    expect(parseRerank(null, 3)).toBeNull();
    expect(parseRerank('NO_REPLY', 3)).toBeNull();
    expect(parseRerank('{"order": "first"}', 3)).toBeNull();
    expect(parseRerank('{"order": [0, 7]}', 3)).toBeNull();
    expect(parseRerank('{broken', 3)).toBeNull();
  });

  it('puts the named items first and keeps the rest in their order', () => {
    expect(reorder(['a', 'b', 'c', 'd'], [2, 0])).toEqual(['c', 'a', 'b', 'd']);
  });
});
