import type { Lens } from './lens';
import { chronological, nonEmpty } from './shared';

export const botHistoryLens: Lens = {
  id: 'bot-history',
  describe: 'recent bot turns and how each landed (reactions, replies)',
  async assemble(req, memory) {
    const turns = await memory.recent(req.guildId, { limit: 15, authorIsBot: true });
    const items = turns.map((t, i) => ({
      ...t,
      layer: 'archive' as const,
      // What landed stays longest when the budget is tight.
      weight: 1 - i / 30 + Math.min(0.5, 0.1 * ((t.reactionCount ?? 0) + 2 * (t.replyCount ?? 0))),
    }));
    return nonEmpty([{ layer: 'archive', items: chronological(items) }]);
  },
};
