import type { Lens } from './lens';
import { narrowLive, nonEmpty, ranked } from './shared';

export const serendipityLens: Lens = {
  id: 'serendipity',
  describe: 'a random sample of the archive, for surprise',
  async assemble(req, memory) {
    const [sample, live] = await Promise.all([
      memory.sample(req.guildId, { limit: 6, seed: req.seed }),
      narrowLive(req, memory, 3, 0.6),
    ]);
    const liveIds = new Set(live.items.map((i) => i.id));
    return nonEmpty([
      ranked(
        'archive',
        sample.filter((s) => !liveIds.has(s.id)),
        1,
      ),
      live,
    ]);
  },
};
