/** Discord's limit on a message's `content`. */
export const DISCORD_MESSAGE_LIMIT = 2000;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Splits content into Discord-sized messages: at the last line break that fits, else at the
 * last whitespace, else hard (never inside a surrogate pair). The separator at a cut is
 * dropped; parts that would be only whitespace are skipped.
 *
 * @example
 * splitContent('a'.repeat(1500) + '\n' + 'b'.repeat(1000)); // ['a…a' (1500), 'b…b' (1000)]
 */
export function splitContent(content: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (limit < 2) throw new RangeError('limit must be at least 2');
  const parts: string[] = [];
  let rest = content;
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    let cut = window.lastIndexOf('\n', limit);
    let skip = 1;
    if (cut <= 0) {
      cut = Math.max(window.lastIndexOf(' ', limit), window.lastIndexOf('\t', limit));
    }
    if (cut <= 0) {
      cut = limit;
      skip = 0;
      if (isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
    }
    const part = rest.slice(0, cut);
    if (part.trim()) parts.push(part);
    rest = rest.slice(cut + skip);
  }
  if (rest.trim()) parts.push(rest);
  return parts;
}
