export * from './durable-timers';
