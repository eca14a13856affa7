export * from './entities';
export * from './read-models';
export * from './config';
export * from './migrate';
