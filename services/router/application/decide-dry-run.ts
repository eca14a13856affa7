import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type RouterDecideRequest,
  type RouterDecideResult,
} from '@dirigent/contracts';
import { isMentioned, routeFromInputs } from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { Agents } from './agents';
import { Personas } from '../learning/application/personas';
import { ReadTheRoom } from './read-the-room';

/**
 * `Subjects.router.decide`: the routing of a hypothetical message in the channel as it is
 * now (its room, memory, budget), without side effects. The same input, room and seed give
 * the same choice; without a seed one is drawn and returned.
 */
@Injectable()
export class DecideDryRun {
  constructor(
    private readonly agents: Agents,
    private readonly room: ReadTheRoom,
    private readonly clock: Clock,
    private readonly personas: Personas,
  ) {}

  async run(r: RouterDecideRequest): Promise<RouterDecideResult> {
    const known = r.agentId ? this.agents.get(r.agentId) : this.agents.all[0];
    if (!known) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, `unknown agent ${r.agentId}`, [
        {
          field: 'agentId',
          messages: [`agentId must be one of: ${this.agents.all.map((a) => a.id).join(', ')}`],
        },
      ]);
    }
    const agent = await this.personas.forTurn(known);
    const content = r.content ?? '';
    const { inputs, dispositions } = await this.room.gather({
      guildId: r.guildId,
      channelId: r.channelId,
      agent,
      trigger: r.unprompted ? 'speculative' : 'reactive',
      mentioned: r.unprompted ? false : isMentioned(agent, { content, mentions: r.mentions }),
      ...(r.unprompted
        ? {}
        : {
            inbound: {
              messageId: '0',
              guildId: r.guildId,
              channelId: r.channelId,
              authorId: r.authorId ?? '0',
              authorIsBot: false,
              content,
              at: this.clock.now(),
              ...(r.mentions ? { mentions: r.mentions } : {}),
            },
          }),
    });
    const d = routeFromInputs(dispositions, inputs, r.seed ?? randomUUID());
    return {
      candidates: d.candidates,
      chosen: d.chosen,
      seed: d.seed,
      dimensions: d.dimensions,
      inputs,
    };
  }
}
