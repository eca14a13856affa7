import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';
import { Migration20261122130000_turn_coordinator } from './Migration20261122130000_turn_coordinator';
import { Migration20261122140000_llm_gateway } from './Migration20261122140000_llm_gateway';
import { Migration20261122150000_llm_reservation_holders } from './Migration20261122150000_llm_reservation_holders';
import { Migration20261123120000_memory } from './Migration20261123120000_memory';
import { Migration20261123160000_router } from './Migration20261123160000_router';
import { Migration20261123170000_orchestrator_runs } from './Migration20261123170000_orchestrator_runs';
import { Migration20261123190000_decision_lineage } from './Migration20261123190000_decision_lineage';
import { Migration20261123193000_memory_scale } from './Migration20261123193000_memory_scale';
import { Migration20261127230000_decision_inputs } from './Migration20261127230000_decision_inputs';
import { Migration20261127233000_memory_provenance } from './Migration20261127233000_memory_provenance';
import { Migration20261128003000_memory_lexical_index } from './Migration20261128003000_memory_lexical_index';
import { Migration20261128010000_router_tasks } from './Migration20261128010000_router_tasks';
import { Migration20261128020000_checkpoint_stream } from './Migration20261128020000_checkpoint_stream';
import { Migration20261128021000_steward_proposals } from './Migration20261128021000_steward_proposals';
import { Migration20261128030000_memory_redaction_forgotten } from './Migration20261128030000_memory_redaction_forgotten';
import { Migration20261128031000_personas } from './Migration20261128031000_personas';
import { Migration20261128032000_router_inbound } from './Migration20261128032000_router_inbound';
import { Migration20261128033000_decision_tool_calls } from './Migration20261128033000_decision_tool_calls';
import { Migration20261128034000_orchestrator_tool_calls } from './Migration20261128034000_orchestrator_tool_calls';
import { Migration20261128110000_roast_back_callback_later } from './Migration20261128110000_roast_back_callback_later';
import { Migration20261128113000_memory_derived_vectors } from './Migration20261128113000_memory_derived_vectors';
import { Migration20261128140000_router_bursts } from './Migration20261128140000_router_bursts';
import { Migration20261129050000_memory_deletion_indexes } from './Migration20261129050000_memory_deletion_indexes';
import { Migration20261129060000_memory_layer_gin_direct } from './Migration20261129060000_memory_layer_gin_direct';
import { Migration20261129093000_memory_epoch_closing } from './Migration20261129093000_memory_epoch_closing';
import { Migration20261129113000_memory_epoch_closing_alive } from './Migration20261129113000_memory_epoch_closing_alive';
import { Migration20261206230000_memory_audience } from './Migration20261206230000_memory_audience';
import { Migration20261206233000_router_reminders } from './Migration20261206233000_router_reminders';
import { Migration20261207000000_steward_restructure_steps } from './Migration20261207000000_steward_restructure_steps';
import { Migration20261207001000_learning_per_community } from './Migration20261207001000_learning_per_community';
import { Migration20261207003500_learning_quotes } from './Migration20261207003500_learning_quotes';
import { Migration20261207150000_memory_redaction_followed } from './Migration20261207150000_memory_redaction_followed';

/**
 * Every migration, in order. Listed explicitly (not discovered by glob) so that the built
 * `dist/` and the TypeScript sources run the same list. Add new ones at the end.
 */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  {
    name: 'Migration20261122130000_turn_coordinator',
    class: Migration20261122130000_turn_coordinator,
  },
  { name: 'Migration20261122140000_llm_gateway', class: Migration20261122140000_llm_gateway },
  {
    name: 'Migration20261122150000_llm_reservation_holders',
    class: Migration20261122150000_llm_reservation_holders,
  },
  { name: 'Migration20261123120000_memory', class: Migration20261123120000_memory },
  { name: 'Migration20261123160000_router', class: Migration20261123160000_router },
  {
    name: 'Migration20261123170000_orchestrator_runs',
    class: Migration20261123170000_orchestrator_runs,
  },
  {
    name: 'Migration20261123190000_decision_lineage',
    class: Migration20261123190000_decision_lineage,
  },
  { name: 'Migration20261123193000_memory_scale', class: Migration20261123193000_memory_scale },
  {
    name: 'Migration20261127230000_decision_inputs',
    class: Migration20261127230000_decision_inputs,
  },
  {
    name: 'Migration20261127233000_memory_provenance',
    class: Migration20261127233000_memory_provenance,
  },
  {
    name: 'Migration20261128003000_memory_lexical_index',
    class: Migration20261128003000_memory_lexical_index,
  },
  { name: 'Migration20261128010000_router_tasks', class: Migration20261128010000_router_tasks },
  {
    name: 'Migration20261128020000_checkpoint_stream',
    class: Migration20261128020000_checkpoint_stream,
  },
  {
    name: 'Migration20261128021000_steward_proposals',
    class: Migration20261128021000_steward_proposals,
  },
  {
    name: 'Migration20261128030000_memory_redaction_forgotten',
    class: Migration20261128030000_memory_redaction_forgotten,
  },
  { name: 'Migration20261128031000_personas', class: Migration20261128031000_personas },
  {
    name: 'Migration20261128032000_router_inbound',
    class: Migration20261128032000_router_inbound,
  },
  {
    name: 'Migration20261128033000_decision_tool_calls',
    class: Migration20261128033000_decision_tool_calls,
  },
  {
    name: 'Migration20261128034000_orchestrator_tool_calls',
    class: Migration20261128034000_orchestrator_tool_calls,
  },
  {
    name: 'Migration20261128110000_roast_back_callback_later',
    class: Migration20261128110000_roast_back_callback_later,
  },
  {
    name: 'Migration20261128113000_memory_derived_vectors',
    class: Migration20261128113000_memory_derived_vectors,
  },
  {
    name: 'Migration20261128140000_router_bursts',
    class: Migration20261128140000_router_bursts,
  },
  {
    name: 'Migration20261129050000_memory_deletion_indexes',
    class: Migration20261129050000_memory_deletion_indexes,
  },
  {
    name: 'Migration20261129060000_memory_layer_gin_direct',
    class: Migration20261129060000_memory_layer_gin_direct,
  },
  {
    name: 'Migration20261129093000_memory_epoch_closing',
    class: Migration20261129093000_memory_epoch_closing,
  },
  {
    name: 'Migration20261129113000_memory_epoch_closing_alive',
    class: Migration20261129113000_memory_epoch_closing_alive,
  },
  {
    name: 'Migration20261206230000_memory_audience',
    class: Migration20261206230000_memory_audience,
  },
  {
    name: 'Migration20261206233000_router_reminders',
    class: Migration20261206233000_router_reminders,
  },
  {
    name: 'Migration20261207000000_steward_restructure_steps',
    class: Migration20261207000000_steward_restructure_steps,
  },
  {
    name: 'Migration20261207001000_learning_per_community',
    class: Migration20261207001000_learning_per_community,
  },
  {
    name: 'Migration20261207003500_learning_quotes',
    class: Migration20261207003500_learning_quotes,
  },
  {
    name: 'Migration20261207150000_memory_redaction_followed',
    class: Migration20261207150000_memory_redaction_followed,
  },
];
