export * from './connection';
export * from './provision';
export * from './messaging';
export * from './messaging.module';
export * from './metrics';
export * from './trace';
