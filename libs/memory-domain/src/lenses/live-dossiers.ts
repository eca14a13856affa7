import type { Lens } from './lens';
import { dossiersFor, liveSection, nonEmpty } from './shared';

export const liveDossiersLens: Lens = {
  id: 'live+dossiers',
  describe: 'the live window plus the dossiers of the people present',
  async assemble(req, memory) {
    const live = await liveSection(req, memory);
    return nonEmpty([await dossiersFor(req, memory, live), live]);
  },
};
