export * from './stemmer';
export * from './analyze';
export * from './bm25';
export * from './names';
export * from './time-expressions';
export * from './rank';
export * from './related';
