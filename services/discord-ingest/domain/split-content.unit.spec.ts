import fc from 'fast-check';
import { splitContent } from './split-content';

const squash = (s: string) => s.replace(/\s+/g, '');

describe('splitContent', () => {
  it('keeps short content whole', () => {
    expect(splitContent('hello')).toEqual(['hello']);
    expect(splitContent('x'.repeat(2000))).toEqual(['x'.repeat(2000)]);
  });

  it('cuts a 2,500-char message at a line break into two', () => {
    const text = `${'a'.repeat(1500)}\n${'b'.repeat(1000)}`;
    expect(splitContent(text)).toEqual(['a'.repeat(1500), 'b'.repeat(1000)]);
  });

  it('prefers the last line break over later spaces', () => {
    const text = `${'a '.repeat(500)}\n${'c '.repeat(600)}`;
    const parts = splitContent(text);
    expect(parts[0]).toBe('a '.repeat(500));
    expect(parts).toHaveLength(2);
  });

  it('falls back to word boundaries, then to a hard cut', () => {
    const words = `${'word '.repeat(450)}end`;
    const parts = splitContent(words);
    expect(parts.every((p) => p.length <= 2000)).toBe(true);
    expect(parts[0].endsWith('word')).toBe(true);
    expect(splitContent('z'.repeat(4500)).map((p) => p.length)).toEqual([2000, 2000, 500]);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(1999)}😀${'b'.repeat(10)}`;
    const parts = splitContent(text);
    expect(parts[0]).toBe('a'.repeat(1999));
    expect(parts[1].startsWith('😀')).toBe(true);
  });

  it('parts fit, are never blank, and lose only whitespace', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('\n', ' ', '\n\n')), {
          maxLength: 200,
        }),
        fc.integer({ min: 2, max: 300 }),
        (chunks, limit) => {
          const text = chunks.join('');
          const parts = splitContent(text, limit);
          expect(parts.every((p) => p.length <= limit && p.trim().length > 0)).toBe(true);
          expect(squash(parts.join(''))).toBe(squash(text));
        },
      ),
    );
  });
});
