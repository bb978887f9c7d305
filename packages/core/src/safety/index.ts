export * from './vocabulary.js';
export * from './ae-form.js';
export * from './sae-clock.js';
export * from './safety-contract.js';
export * from './sae-report-fields.js';
export * from './sae-patient-measures.js';
