/**
 * The coordinator's tables: its read models, which live in libs/persistence because the
 * control page and the playground read them too.
 */
export {
  ChannelRow,
  IdentityRow,
  TurnEventRow,
  turnCoordinatorEntities,
} from '@dirigent/persistence';
