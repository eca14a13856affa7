import type { Lens } from './lens';
import { dossiersFor, liveSection, loreSection, nonEmpty } from './shared';

export const liveLoreDossiersLens: Lens = {
  id: 'live+lore+dossiers',
  describe: 'the live window, lore and dossiers of the people present; no archive',
  async assemble(req, memory) {
    const live = await liveSection(req, memory);
    const [lore, dossiers] = await Promise.all([
      loreSection(memory, req.guildId),
      dossiersFor(req, memory, live),
    ]);
    return nonEmpty([lore, dossiers, live]);
  },
};
