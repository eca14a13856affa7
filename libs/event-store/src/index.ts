export * from './event-store';
export * from './command-handler';
export * from './projection-checkpoint';
export * from './projection';
export * from './snapshots';
