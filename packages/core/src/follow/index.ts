export * from './schedule.js';
export * from './state.js';
export * from './contract.js';
export * from './plan-impact.js';
export * from './draft-contract.js';
