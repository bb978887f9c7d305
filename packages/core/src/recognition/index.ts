export * from './analytes.js';
export * from './lab-report.js';
export * from './mapping.js';
export * from './plausibility.js';
export * from './qualitative.js';
export * from './contract.js';
export * from './units.js';
