export * from './cobb.js';
