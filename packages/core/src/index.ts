export * from './messages.js';
export * from './account.js';
export * from './access.js';
export * from './paging.js';
export * from './menu.js';
export * from './crf/index.js';
export * from './study.js';
export * from './subject.js';
