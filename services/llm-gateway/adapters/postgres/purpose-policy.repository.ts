import { EntityRepository } from '@mikro-orm/postgresql';
import type { PurposeRoute } from '@dirigent/llm';
import type { PurposePolicy } from './purpose-policy.entity';

export class PurposePolicyRepository extends EntityRepository<PurposePolicy> {
  async put(purpose: string, route: PurposeRoute): Promise<void> {
    await this.getEntityManager().upsert(this.getEntityName(), {
      purpose,
      model: route.model,
      fallbacks: route.fallbacks,
      updatedAt: new Date(),
    });
  }

  async delete(purpose: string): Promise<boolean> {
    return (await this.nativeDelete({ purpose })) > 0;
  }
}
