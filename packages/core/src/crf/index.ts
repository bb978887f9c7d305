export * from './crf-definition.schema.js';
export * from './options.js';
export * from './date-time.js';
export * from './value-converter.js';
export * from './expression/index.js';
