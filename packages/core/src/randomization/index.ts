export * from './config.js';
export * from './types.js';
export * from './rng.js';
export * from './strata.js';
export * from './allocation.js';
export * from './minimization.js';
export * from './simulate.js';
export * from './verify.js';
