import type { Disposition } from '../../../router-domain/src/dimensions';

const literal = (v: unknown) =>
  v === null
    ? 'null'
    : typeof v === 'boolean' || typeof v === 'number'
      ? String(v)
      : `'${String(v).replace(/'/g, "''")}'`;

/**
 * The `insert` that seeds dispositions into `dispositions`, from their one definition in
 * `@dirigent/router-domain` (`CANONICAL_DISPOSITIONS`). A row already there is left as it is:
 * a migration that seeds a disposition added to the canonical set later inserts it on a
 * database migrated before it and does nothing on one the router migration just seeded.
 *
 * @example
 * this.addSql(insertDispositionsSql(CANONICAL_DISPOSITIONS.filter((d) => d.id === 'new-one')));
 */
export function insertDispositionsSql(dispositions: readonly Disposition[]): string {
  const values = dispositions.map((d) =>
    [
      d.id,
      d.name,
      d.reasoningDepth,
      d.contextStrategy,
      d.voice,
      d.outputShape,
      d.searchPosture,
      d.riskAppetite,
      d.speculativeOnly === true,
      d.selfFollowupHint ? JSON.stringify(d.selfFollowupHint) : null,
      d.weight ?? 1,
    ]
      .map(literal)
      .join(', '),
  );
  return `insert into "dispositions" ("id", "name", "reasoning_depth", "context_strategy", "voice", "output_shape", "search_posture", "risk_appetite", "speculative_only", "self_followup_hint", "weight") values ${values.map((v) => `(${v})`).join(', ')} on conflict ("id") do nothing;`;
}
