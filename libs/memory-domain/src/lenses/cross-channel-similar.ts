import type { Lens } from './lens';
import { hitsByLayer, narrowLive, nonEmpty, searchTopic } from './shared';

export const crossChannelSimilarLens: Lens = {
  id: 'cross-channel-similar',
  describe: 'recent conversations from other channels on a similar topic',
  async assemble(req, memory) {
    const hits = await searchTopic(req, memory, {
      k: 12,
      layers: ['archive', 'epochs'],
      excludeChannelId: req.channelId,
    });
    return nonEmpty([...hitsByLayer(hits, 1), await narrowLive(req, memory, 5, 0.6)]);
  },
};
