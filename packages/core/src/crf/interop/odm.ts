/**
 * CDISC ODM 1.3.2 metadata: FormDef, ItemGroupDef, ItemDef, CodeList, RangeCheck, and the logic as
 * ODM says it: an item's show condition (its showIf and its native triggers trig/trigex) is the negation
 * of a collection exception (a ConditionDef named by CollectionExceptionConditionOID), a calc is a
 * MethodDef of Type Computation (MethodOID), both as FormalExpressions in the `ecrf` context (our
 * language, items written as ItemOIDs). A multiple choice is one boolean ItemDef per option
 * (`<item>___<code>`, as REDCap writes it; our logic names it by the stem of their OIDs), and the text
 * typed beside an option (其他（请注明）) an ItemDef of its own, collected while its option is chosen.
 * ODM item groups are flat and know no display items, checks or most of our options, so the export also
 * writes what ODM cannot say as Alias elements of Context `ecrf:<Key>` (CrfType, CrfName, CrfId,
 * CrfOption, CrfParent, CrfOrder, CrfRules, CrfTitle, CrfChoiceOf, CrfAdditionOf; odm-write.ts): the
 * file validates against the official schema, other systems skip them, and our import restores the
 * exact tree from them (files of earlier versions carried them as attributes of our namespace, still
 * read). A file from another system is read from the standard elements (REDCap's own export from its
 * attributes, odm-redcap.ts), and whatever they cannot say is reported.
 */
export {
  ECRF_NS,
  exportOdm,
  isPerChoice,
  ODM_NS,
  odmMetadata,
  type OdmExportOptions,
  type OdmFormLayout,
  type OdmItemPlace,
} from './odm-export.js';
export { importOdm } from './odm-import.js';
