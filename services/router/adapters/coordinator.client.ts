import { Logger } from '@nestjs/common';
import { Subjects, type ChannelView } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { TurnCoordination } from '../application/clients';

const TTL_MS = 3000;

/**
 * `Subjects.admin.channelGet`, cached a few seconds per channel. A channel is managed
 * while turn management is on; without the coordinator every channel is unmanaged. A query
 * that fails keeps what was last known of the channel: a coordinator slow to answer under
 * load does not turn a managed channel into one where agents answer without a grant (and
 * answer twice, once more when the grant comes).
 */
export class NatsTurnCoordination extends TurnCoordination {
  private readonly log = new Logger('router:coordinator');
  private readonly cache = new Map<
    string,
    { at: number; value: { managed: boolean; speakers: string[] } }
  >();
  private warned = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async managed(channelId: string) {
    const hit = this.cache.get(channelId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const reply = await this.messaging.request<ChannelView>(
      Subjects.admin.channelGet,
      { channelId },
      this.timeoutMs,
    );
    let value = hit?.value ?? { managed: false, speakers: [] as string[] };
    if (reply.ok) {
      const v = reply.data;
      value = {
        managed: v.tmState !== 'disabled' && v.mode !== 'none',
        speakers: v.speakers ?? [],
      };
    } else if (!this.warned) {
      this.warned = true;
      this.log.warn(`coordinator unavailable (${reply.error.code}): channels count as unmanaged`);
    }
    this.cache.set(channelId, { at: Date.now(), value });
    return value;
  }

  async register(agent: { id: string; name: string; discordUserId: string }) {
    const reply = await this.messaging.request(
      Subjects.admin.identityUpsert,
      { discordUserId: agent.discordUserId, agentId: agent.id, agentName: agent.name },
      this.timeoutMs,
    );
    if (!reply.ok)
      this.log.warn(`agent ${agent.id} not registered: ${reply.error.code} ${reply.error.message}`);
    return reply.ok;
  }
}
