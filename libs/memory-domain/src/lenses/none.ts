import type { Lens } from './lens';

export const noneLens: Lens = {
  id: 'none',
  describe: 'no memory at all: the system prompt alone',
  assemble: async () => [],
};
