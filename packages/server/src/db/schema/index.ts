export * from './system.js';
export * from './study.js';
export * from './capture.js';
export * from './doubt.js';
export * from './security.js';
export * from './events.js';
export * from './jobs.js';
export * from './search.js';
