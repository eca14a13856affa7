import type { Lens } from './lens';
import {
  dossiersBeside,
  hitsByLayer,
  liveSection,
  loreSection,
  nonEmpty,
  ranked,
  searchTopic,
} from './shared';

export const fullRichLens: Lens = {
  id: 'full-rich',
  describe: 'everything: live, dossiers, lore, top archive matches and recent epochs',
  async assemble(req, memory) {
    const pending = liveSection(req, memory);
    const [live, dossiers, lore, hits, epochs] = await Promise.all([
      pending,
      dossiersBeside(req, memory, pending, 0.8),
      loreSection(memory, req.guildId, 0.6),
      searchTopic(req, memory, { k: 8, layers: ['archive', 'highlights'] }),
      memory.epochs(req.guildId, { limit: 5 }),
    ]);
    const liveIds = new Set(live.items.map((i) => i.id));
    return nonEmpty([
      ranked('epochs', epochs, 0.5),
      lore,
      dossiers,
      ...hitsByLayer(
        hits.filter((h) => !liveIds.has(h.id)),
        0.7,
      ),
      live,
    ]);
  },
};
