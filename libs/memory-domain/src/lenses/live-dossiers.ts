import type { Lens } from './lens';
import { dossiersBeside, liveSection, nonEmpty } from './shared';

export const liveDossiersLens: Lens = {
  id: 'live+dossiers',
  describe: 'the live window plus the dossiers of the people present',
  async assemble(req, memory) {
    const pending = liveSection(req, memory);
    const [live, dossiers] = await Promise.all([pending, dossiersBeside(req, memory, pending)]);
    return nonEmpty([dossiers, live]);
  },
};
