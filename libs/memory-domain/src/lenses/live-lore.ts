import type { Lens } from './lens';
import { liveSection, loreSection, nonEmpty } from './shared';

export const liveLoreLens: Lens = {
  id: 'live+lore',
  describe: "the live window plus the group's lore",
  async assemble(req, memory) {
    const [live, lore] = await Promise.all([
      liveSection(req, memory),
      loreSection(memory, req.guildId),
    ]);
    return nonEmpty([lore, live]);
  },
};
