export * from './schedule.js';
export * from './state.js';
