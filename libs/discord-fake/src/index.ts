export * from './fake-discord';
export * from './gateway';
export * from './model';
export * from './permissions';
export * from './snowflakes';
