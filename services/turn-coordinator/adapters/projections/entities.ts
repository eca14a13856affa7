/** The coordinator's read-model entities live with their migrations in libs/persistence. */
export {
  ChannelRow,
  IdentityRow,
  TurnEventRow,
  turnCoordinatorEntities,
} from '@dirigent/persistence';
