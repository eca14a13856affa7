import type { Lens } from './lens';
import { narrowLive, nonEmpty } from './shared';

export const narrowLiveLens: Lens = {
  id: 'narrow-live',
  describe: "the current channel's last 5 messages (quick reactions)",
  assemble: async (req, memory) => nonEmpty([await narrowLive(req, memory, 5)]),
};
