/** Discord's limit on one message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

/**
 * Text cut into messages of at most `limit` characters, at a line break or a space when
 * one is in the second half of the window, else hard: how Dirigent's own agents send a
 * longer text, each part one Discord message (the ingest then has nothing to split).
 *
 * @example
 * splitForDiscord('a'.repeat(4500)).map((p) => p.length); // [2000, 2000, 500]
 */
export function splitForDiscord(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const at = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const cut = at >= limit / 2 ? at : limit;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) parts.push(rest);
  return parts;
}
