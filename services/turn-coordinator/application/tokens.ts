/** Nest injection token of the deciders' configuration (`TurnDomainConfig`). */
export const TURN_DOMAIN_CONFIG = Symbol('TURN_DOMAIN_CONFIG');
/** The channel snapshots (a `SnapshotStore<ChannelState>`; adapters/channel-snapshots.ts). */
export const CHANNEL_SNAPSHOTS = Symbol('CHANNEL_SNAPSHOTS');
