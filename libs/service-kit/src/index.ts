export * from './config';
export * from './bootstrap';
export * from './core.module';
export * from './health.controller';
export * from './logging';
export * from './embedded';
export * from './embedded-postgres';
export * from './microservice';
