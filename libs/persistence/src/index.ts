export * from './entities';
export * from './config';
export * from './migrate';
export { migrationsList } from './migrations';
