import { Migration } from '@mikro-orm/migrations';
import { CANONICAL_DISPOSITIONS } from '../../../router-domain/src/canonical';

const hint = JSON.stringify(
  CANONICAL_DISPOSITIONS.find((d) => d.id === 'roast-back')!.selfFollowupHint,
).replace(/'/g, "''");

/**
 * The canonical `roast-back` schedules a `callback-later` follow-up (its hint, from the one
 * definition in `@dirigent/router-domain`). A database seeded before keeps its row; the
 * hint is set where the row still has none (an admin's own hint is left as it is).
 */
export class Migration20261128110000_roast_back_callback_later extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update "dispositions" set "self_followup_hint" = '${hint}' where "id" = 'roast-back' and "self_followup_hint" is null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `update "dispositions" set "self_followup_hint" = null where "id" = 'roast-back' and "self_followup_hint" = '${hint}'::jsonb;`,
    );
  }
}
