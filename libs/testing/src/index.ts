export * from './env';
export * from './ids';
export * from './wait';
export * from './process';
export * from './messaging';
export * from './spans';
