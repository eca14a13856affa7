import type { Lens } from './lens';
import { liveSection, nonEmpty, ranked, searchTopic } from './shared';

export const callbackPrimedLens: Lens = {
  id: 'callback-primed',
  describe: 'ripe callbacks first: highlights on the topic, then the strongest ones',
  async assemble(req, memory) {
    const [onTopic, strongest, live] = await Promise.all([
      searchTopic(req, memory, { k: 6, layers: ['highlights'] }),
      memory.highlights(req.guildId, { limit: 6 }),
      liveSection(req, memory, Math.min(20, req.liveWindow)),
    ]);
    const seen = new Set(onTopic.map((h) => h.id));
    const highlights = [...onTopic, ...strongest.filter((h) => !seen.has(h.id))];
    return nonEmpty([ranked('highlights', highlights, 1.2), live]);
  },
};
