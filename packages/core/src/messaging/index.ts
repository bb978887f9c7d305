export * from './reminder-schedule.js';
export * from './quiet-hours.js';
export * from './message-template.js';
