import type { Lens } from './lens';
import type { MemoryItem } from '../types';
import { chronological, narrowLive, nonEmpty, ranked } from './shared';

const WEEK = 7 * 86_400_000;
const HALF_WINDOW = 60 * 60_000;

export const timeShiftedLens: Lens = {
  id: 'time-shifted',
  describe: 'the same channel at a similar time of day in past weeks (the moment’s vibe)',
  async assemble(req, memory) {
    const weeks = [1, 2, 3, 4];
    const windows = await Promise.all(
      weeks.map((w) =>
        memory.recent(req.guildId, {
          limit: 6,
          channelId: req.channelId,
          since: req.now - w * WEEK - HALF_WINDOW,
          until: req.now - w * WEEK + HALF_WINDOW,
        }),
      ),
    );
    // The nearest week weighs most.
    const past: MemoryItem[] = windows.flat();
    const section = ranked('archive', past, 1);
    const live = await narrowLive(req, memory, 3, 0.5);
    return nonEmpty([{ layer: 'archive', items: chronological(section.items) }, live]);
  },
};
