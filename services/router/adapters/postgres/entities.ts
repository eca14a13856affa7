import { DecisionRow } from './decision.entity';
import { DispositionRow } from './disposition.entity';
import { FollowupRow } from './followup.entity';
import { SubagentRunRow } from './subagent-run.entity';

/** The router's tables (Migration20261123160000_router, …190000_decision_lineage). */
export const routerEntities = [DispositionRow, DecisionRow, SubagentRunRow, FollowupRow];
