export * from './types';
export * from './dice';
export * from './registry';
export * from './tool-loop';
export * from './journal';
export * from './permissions';
export * from './rights';
