import { ChannelRow } from './channel.entity';
import { IdentityRow } from './identity.entity';
import { TurnEventRow } from './turn-event.entity';

export { ChannelRow, IdentityRow, TurnEventRow };

/**
 * The turn coordinator's read models (Migration20261122130000_turn_coordinator). The
 * coordinator's projection writes them; the control page and the playground read them, so
 * they live in this library rather than in the service.
 */
export const turnCoordinatorEntities = [IdentityRow, ChannelRow, TurnEventRow];
