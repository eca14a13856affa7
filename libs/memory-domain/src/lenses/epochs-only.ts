import type { Lens } from './lens';
import { chronological, nonEmpty, ranked } from './shared';

export const epochsOnlyLens: Lens = {
  id: 'epochs-only',
  describe: 'recent epoch summaries only: the vibe, no raw messages',
  async assemble(req, memory) {
    const epochs = await memory.epochs(req.guildId, { limit: 10 });
    const section = ranked('epochs', epochs, 1);
    return nonEmpty([{ layer: 'epochs', items: chronological(section.items) }]);
  },
};
