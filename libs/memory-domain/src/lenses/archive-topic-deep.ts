import type { Lens } from './lens';
import { hitsByLayer, narrowLive, nonEmpty, searchTopic } from './shared';

export const archiveTopicDeepLens: Lens = {
  id: 'archive-topic-deep',
  describe: 'heavy search of the archive and highlights on the current topic; light live',
  async assemble(req, memory) {
    const [hits, live] = await Promise.all([
      searchTopic(req, memory, { k: 16, layers: ['archive', 'highlights'] }),
      narrowLive(req, memory, 8, 0.6),
    ]);
    const liveIds = new Set(live.items.map((i) => i.id));
    return nonEmpty([
      ...hitsByLayer(
        hits.filter((h) => !liveIds.has(h.id)),
        1,
      ),
      live,
    ]);
  },
};
