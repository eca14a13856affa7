export * from './relay-client';
