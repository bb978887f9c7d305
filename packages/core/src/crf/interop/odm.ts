/**
 * CDISC ODM 1.3.2 metadata: FormDef, ItemGroupDef, ItemDef, CodeList, RangeCheck, and the logic as
 * ODM says it: a showIf is the negation of a collection exception (a ConditionDef named by
 * CollectionExceptionConditionOID), a calc is a MethodDef of Type Computation (MethodOID), both as
 * FormalExpressions in the `ecrf` context (our language, items written as ItemOIDs). ODM item groups
 * are flat and know no display items, checks or most of our options, so the export also writes our
 * own attributes in a separate namespace for what ODM cannot say (CrfType, CrfName, CrfId, CrfOption,
 * CrfParent, CrfOrder, CrfRules); other systems ignore them, and our import restores the exact tree
 * from them. A file from another system is read from the standard elements (REDCap's own export from
 * its attributes, odm-redcap.ts), and whatever they cannot say is reported.
 */
export {
  ECRF_NS,
  exportOdm,
  ODM_NS,
  odmMetadata,
  type OdmExportOptions,
  type OdmFormLayout,
  type OdmItemPlace,
} from './odm-export.js';
export { importOdm } from './odm-import.js';
