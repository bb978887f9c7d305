export * from './config.js';
export * from './types.js';
export * from './rng.js';
export * from './strata.js';
