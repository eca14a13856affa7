import type { Lens } from './lens';
import type { MemoryItem } from '../types';
import { chronological, narrowLive, nonEmpty, ranked } from './shared';

const LOOKBACK = 3 * 86_400_000;
const ANSWER_WINDOW = 10 * 60_000;

/** A question nobody replied to and nobody else spoke after in its channel for a while. */
export function isUnanswered(q: MemoryItem, later: MemoryItem[]): boolean {
  if (q.authorIsBot || !q.text.includes('?') || (q.replyCount ?? 0) > 0) return false;
  return !later.some(
    (m) =>
      m.channelId === q.channelId &&
      m.authorId !== q.authorId &&
      m.at > q.at &&
      m.at - q.at <= ANSWER_WINDOW,
  );
}

export const unansweredLens: Lens = {
  id: 'unanswered',
  describe: 'recent questions and threads left hanging',
  async assemble(req, memory) {
    const recent = await memory.recent(req.guildId, { limit: 200, since: req.now - LOOKBACK });
    const open = recent.filter((m) => isUnanswered(m, recent)).slice(0, 10);
    const section = ranked('archive', open, 1);
    const live = await narrowLive(req, memory, 4, 0.5);
    return nonEmpty([{ layer: 'archive', items: chronological(section.items) }, live]);
  },
};
