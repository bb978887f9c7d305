export * from './system.js';
export * from './study.js';
