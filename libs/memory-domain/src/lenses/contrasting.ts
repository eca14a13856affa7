import type { Lens } from './lens';
import { narrowLive, nonEmpty, ranked, topicOf } from './shared';

/** Cheap markers of disagreement; the synthesizer reads the verbatim text itself. */
export const DISAGREEMENT =
  /\b(no|nope|disagree|wrong|not really|actually|but|however|nah|never|overrated|overhyped|hate|doubt|prefer)\b/i;

export const contrastingLens: Lens = {
  id: 'contrasting',
  describe: 'past material where the people present disagreed on a similar topic',
  async assemble(req, memory) {
    const topic = await topicOf(req, memory);
    const live = await narrowLive(req, memory, 4, 0.5);
    if (!topic) return nonEmpty([live]);
    const hits = await memory.search(req.guildId, topic, { k: 40, layers: ['archive'] });
    const present = new Set(req.presentUserIds);
    const liveIds = new Set(live.items.map((i) => i.id));
    const contrasts = hits.filter(
      (h) =>
        !liveIds.has(h.id) &&
        DISAGREEMENT.test(h.text) &&
        (present.size === 0 || (h.authorId !== undefined && present.has(h.authorId))),
    );
    // Disagreement needs two sides: prefer the best hit of each author in turn.
    const byAuthor = new Map<string, typeof contrasts>();
    for (const h of contrasts) {
      const key = h.authorId ?? '';
      byAuthor.set(key, [...(byAuthor.get(key) ?? []), h]);
    }
    const interleaved: typeof contrasts = [];
    for (let round = 0; interleaved.length < 10; round++) {
      const before = interleaved.length;
      for (const list of byAuthor.values()) if (list[round]) interleaved.push(list[round]);
      if (interleaved.length === before) break;
    }
    return nonEmpty([ranked('archive', interleaved.slice(0, 10), 1), live]);
  },
};
