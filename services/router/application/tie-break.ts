import { isModelFree, type Candidate, type Disposition } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import type { TurnRequest } from './turn-record';
import { ModelGateway } from './clients';

/**
 * The optional cheap tie-break: when the top two candidates both speak and score within
 * 10%, purpose `router-classify` picks one of them; anything else keeps the sampled choice.
 */
export async function tieBreak(
  models: ModelGateway,
  config: RouterConfig,
  r: Pick<TurnRequest, 'guildId' | 'inbound'>,
  all: Disposition[],
  { candidates, tight }: { candidates: Candidate[]; tight: boolean },
): Promise<{ id: string; model: string; costUsd: number } | undefined> {
  if (!config.DIRIGENT_ROUTER_TIEBREAK || !tight || !r.inbound) return undefined;
  const top = [...candidates]
    .sort((a, b) => b.score - a.score)
    .slice(0, 2)
    .map((c) => all.find((d) => d.id === c.dispositionId)!);
  if (top.some((d) => !d || isModelFree(d))) return undefined;
  try {
    const answer = await models.chat(
      r.guildId,
      'router-classify',
      [
        {
          role: 'system',
          content:
            'Pick how a witty group-chat member should answer. Reply with one option id only.',
        },
        {
          role: 'user',
          content: `Message: ${r.inbound.content}\nOptions:\n${top
            .map((d) => `- ${d.id}: ${d.voice}, ${d.outputShape}, ${d.reasoningDepth} reasoning`)
            .join('\n')}`,
        },
      ],
      config.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS,
      16,
    );
    const picked = top.find((d) => answer.text.includes(d.id));
    return picked && { id: picked.id, model: answer.model, costUsd: answer.costUsd };
  } catch {
    return undefined;
  }
}
