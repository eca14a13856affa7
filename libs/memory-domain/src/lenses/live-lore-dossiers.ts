import type { Lens } from './lens';
import { dossiersBeside, liveSection, loreSection, nonEmpty } from './shared';

export const liveLoreDossiersLens: Lens = {
  id: 'live+lore+dossiers',
  describe: 'the live window, lore and dossiers of the people present; no archive',
  async assemble(req, memory) {
    const pending = liveSection(req, memory);
    const [live, lore, dossiers] = await Promise.all([
      pending,
      loreSection(memory, req.guildId),
      dossiersBeside(req, memory, pending),
    ]);
    return nonEmpty([lore, dossiers, live]);
  },
};
