export * from './cobb.js';
export * from './measure.js';
export * from './angles.js';
export * from './diagnosis.js';
export * from './schema.js';
export * from './round.js';
export * from './cobb-item.js';
export * from './item-value.js';
