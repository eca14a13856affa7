import type { Lens } from './lens';
import { liveSection, nonEmpty } from './shared';

export const liveLens: Lens = {
  id: 'live',
  describe: 'the guild-wide live window, channel-tagged, the current channel weighted',
  assemble: async (req, memory) => nonEmpty([await liveSection(req, memory)]),
};
