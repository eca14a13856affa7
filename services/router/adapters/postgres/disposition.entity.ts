import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { SelfFollowupHint } from '@dirigent/router-domain';

/** A disposition of the router's global persona set (seeded with the ten canonical ones). */
@Entity({ tableName: 'dispositions' })
export class DispositionRow {
  @PrimaryKey({ length: 64 }) id: string;
  @Property({ length: 100 }) name: string;
  @Property({ length: 16 }) reasoningDepth: string;
  @Property({ length: 32 }) contextStrategy: string;
  @Property({ length: 32 }) voice: string;
  @Property({ length: 16 }) outputShape: string;
  @Property({ length: 32 }) searchPosture: string;
  @Property({ length: 8 }) riskAppetite: string;
  @Property() speculativeOnly = false;
  @Property({ type: 'json', nullable: true }) selfFollowupHint: SelfFollowupHint | null = null;
  @Property({ type: 'double' }) weight = 1;
  @Property({ columnType: 'timestamptz' }) updatedAt: Date = new Date();
}
