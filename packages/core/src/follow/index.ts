export * from './schedule.js';
export * from './state.js';
export * from './contract.js';
