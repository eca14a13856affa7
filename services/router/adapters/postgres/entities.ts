import { DecisionRow } from './decision.entity';
import { DispositionRow } from './disposition.entity';
import { DispositionSetRow } from './disposition-set.entity';
import { FollowupRow } from './followup.entity';
import { SubagentRunRow } from './subagent-run.entity';

/** The router's tables (Migration20261123160000_router, …190000_decision_lineage, …20261127230000_decision_inputs). */
export const routerEntities = [
  DispositionRow,
  DecisionRow,
  SubagentRunRow,
  FollowupRow,
  DispositionSetRow,
];
