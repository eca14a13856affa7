export * from './event-store';
export * from './command-handler';
export * from './projection';
export * from './snapshots';
