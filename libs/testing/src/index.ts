export * from './env';
export * from './ids';
export * from './wait';
