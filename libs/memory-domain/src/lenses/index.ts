import type { Lens } from './lens';
import { archivePersonDeepLens } from './archive-person-deep';
import { archiveTopicDeepLens } from './archive-topic-deep';
import { botHistoryLens } from './bot-history';
import { callbackPrimedLens } from './callback-primed';
import { contrastingLens } from './contrasting';
import { crossChannelSimilarLens } from './cross-channel-similar';
import { epochsOnlyLens } from './epochs-only';
import { fullRichLens } from './full-rich';
import { liveLens } from './live';
import { liveDossiersLens } from './live-dossiers';
import { liveLoreLens } from './live-lore';
import { liveLoreDossiersLens } from './live-lore-dossiers';
import { narrowLiveLens } from './narrow-live';
import { noneLens } from './none';
import { serendipityLens } from './serendipity';
import { timeShiftedLens } from './time-shifted';
import { unansweredLens } from './unanswered';

export * from './lens';
export { isUnanswered } from './unanswered';
export { DISAGREEMENT } from './contrasting';

/** Every context strategy, by id. A new lens: one file in this folder and one line here. */
export const LENSES: readonly Lens[] = [
  noneLens,
  narrowLiveLens,
  liveLens,
  liveDossiersLens,
  liveLoreLens,
  liveLoreDossiersLens,
  archiveTopicDeepLens,
  archivePersonDeepLens,
  epochsOnlyLens,
  timeShiftedLens,
  crossChannelSimilarLens,
  contrastingLens,
  serendipityLens,
  unansweredLens,
  botHistoryLens,
  callbackPrimedLens,
  fullRichLens,
];

const byId = new Map(LENSES.map((l) => [l.id, l]));

export function lensFor(id: string): Lens | undefined {
  return byId.get(id);
}
