import { BurstRow } from './burst.entity';
import { DecisionRow } from './decision.entity';
import { DispositionRow } from './disposition.entity';
import { DispositionSetRow } from './disposition-set.entity';
import { FollowupRow } from './followup.entity';
import { InboundRow } from './inbound.entity';
import { SubagentRunRow } from './subagent-run.entity';

/** The router's tables (Migration20261123160000_router, …190000_decision_lineage, …20261127230000_decision_inputs, …20261128032000_router_inbound, …20261128140000_router_bursts). */
export const routerEntities = [
  DispositionRow,
  DecisionRow,
  SubagentRunRow,
  FollowupRow,
  DispositionSetRow,
  InboundRow,
  BurstRow,
];
