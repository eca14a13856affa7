import { LockMode } from '@mikro-orm/core';
import { EntityRepository } from '@mikro-orm/postgresql';
import type { GatewayInstance } from './gateway-instance.entity';

export class GatewayInstanceRepository extends EntityRepository<GatewayInstance> {
  async heartbeat(instanceId: string): Promise<void> {
    await this.getEntityManager().upsert(this.getEntityName(), {
      instanceId,
      heartbeatAt: new Date(),
    });
  }

  /**
   * Instances silent since `before` (other than `self`), locked for this transaction;
   * rows another reaper holds are skipped, so an instance is released once.
   */
  async silentSince(before: Date, self: string): Promise<string[]> {
    const rows = await this.find(
      { heartbeatAt: { $lt: before }, instanceId: { $ne: self } },
      { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    return rows.map((r) => r.instanceId);
  }

  async delete(instanceIds: string[]): Promise<void> {
    await this.nativeDelete({ instanceId: { $in: instanceIds } });
  }
}
