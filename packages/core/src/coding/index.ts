export * from './match-key.js';
export * from './meddra.js';
export * from './whodrug.js';
export * from './auto-code.js';
export * from './coding-contract.js';
export * from './coding-export.js';
export * from './whodrug-b3.js';
export * from './dictionary-files.js';
