import type { Lens } from './lens';
import { narrowLive, nonEmpty, ranked, topicOf } from './shared';

export const archivePersonDeepLens: Lens = {
  id: 'archive-person-deep',
  describe: "one person's own past statements on the topic, with their dossier",
  async assemble(req, memory) {
    // Read beside the rest when the request names its focus (its rejection is Promise.all's).
    const pending = narrowLive(req, memory, 5, 0.5);
    pending.catch(() => undefined);
    const focus =
      req.focusUserId ??
      [...(await pending).items].reverse().find((i) => i.authorId && !i.authorIsBot)?.authorId;
    if (!focus) return nonEmpty([await pending]);
    // Only the search waits for the topic: the other reads are asked for at once, together.
    const [live, said, dossier, latest] = await Promise.all([
      pending,
      topicOf(req, memory).then((topic) =>
        topic
          ? memory.search(req.guildId, topic, { k: 12, layers: ['archive'], authorId: focus })
          : [],
      ),
      memory.dossiers(req.guildId, [focus]),
      memory.recent(req.guildId, { limit: 6, authorId: focus }),
    ]);
    const seen = new Set(said.map((s) => s.id));
    const statements = [...said, ...latest.filter((l) => !seen.has(l.id))];
    return nonEmpty([ranked('dossiers', dossier, 0.9), ranked('archive', statements, 1), live]);
  },
};
