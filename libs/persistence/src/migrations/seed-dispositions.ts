/**
 * A disposition row as a migration seeds it. Plain strings: a migration carries its own data
 * and imports no list of the code's, so what it writes never changes when the code does.
 */
export interface SeededDisposition {
  id: string;
  name: string;
  reasoningDepth: string;
  contextStrategy: string;
  voice: string;
  outputShape: string;
  searchPosture: string;
  riskAppetite: string;
  speculativeOnly?: boolean;
  selfFollowupHint?: { probability: number; bias: string; windowMs: [number, number] };
  weight?: number;
}

const literal = (v: unknown) =>
  v === null
    ? 'null'
    : typeof v === 'boolean' || typeof v === 'number'
      ? String(v)
      : `'${String(v).replace(/'/g, "''")}'`;

/**
 * The `insert` that seeds dispositions into `dispositions`. A row already there is left as
 * it is: a migration that seeds a disposition added to the canonical set later inserts it on
 * a database migrated before it. The migration writes the rows out itself.
 *
 * @example
 * this.addSql(insertDispositionsSql([{ id: 'new-one', name: 'New one', ... }]));
 */
export function insertDispositionsSql(dispositions: readonly SeededDisposition[]): string {
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
