export * from './projection-checkpoint.entity';
export * from './read-models/entities';
export * from './config';
export * from './migrate';
