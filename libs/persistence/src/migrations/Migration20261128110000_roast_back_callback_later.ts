import { Migration } from '@mikro-orm/migrations';
import type { SeededDisposition } from './seed-dispositions';

const MIN = 60_000;

/** The hint this migration gives `roast-back`: its own copy, never changed by later code. */
export const ROAST_BACK_HINT: SeededDisposition['selfFollowupHint'] = {
  probability: 0.15,
  bias: 'callback-later',
  windowMs: [20 * MIN, 60 * MIN],
};
const hint = JSON.stringify(ROAST_BACK_HINT).replace(/'/g, "''");

/**
 * The canonical `roast-back` schedules a `callback-later` follow-up. A database seeded
 * before keeps its row; the hint is set where the row still has none (an admin's own hint is
 * left as it is).
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
