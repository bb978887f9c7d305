/**
 * Importers and exporters, a separate entry (@ecrf/core/interop) so the web bundle pulls in exceljs
 * and the XML parser only where it imports them.
 */
export * from './import-result.js';
export * from './redcap.js';
export * from './redcap-export.js';
export * from './redcap-events.js';
export * from './redcap-values.js';
export * from './redcap-xml.js';
export * from './excel.js';
export * from './odm.js';
export * from './import-limits.js';
export * from './odm-clinical.js';
export * from './odm-missing.js';
