// What a caller may search and show in a study: the condition builder's dictionary, checked again by search-sql.ts.
import { asc, eq } from 'drizzle-orm';
import {
  choicesOf,
  FORM_STATE_FILTERS,
  FORM_STATE_OPERATORS,
  isIdentifierItem,
  MISSING_SEARCH_OPERATORS,
  OPERATORS_BY_KIND,
  operatorLabel,
  PATIENT_FIXED_OPTIONS,
  PATIENT_SEARCH_FIELDS,
  patientFieldOperators,
  SEARCH_JOINS,
  SEARCH_OPERATORS,
  SEARCH_PATH_SEPARATOR,
  SEARCH_ROW_SEPARATOR,
  searchableItems,
  searchItemPath,
  unitsOf,
  type PatientSearchField,
  type SearchableItem,
  type SearchKind,
  type SearchOperator,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { studyDiseases } from '../../db/schema/index.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { studyFormLayout } from '../../shared/study-forms.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';
import { getMissingCodes } from '../study/missing-codes.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/** Several records of a repeatable form in one result cell, in record order. */
export const RECORD_SEPARATOR = '；';

export interface DictOption {
  value: string;
  label: string;
}
export interface DictItem {
  name: string;
  title: string;
  /** How the builder shows it: the title, after its list group's or table's title (`用药记录 › 药物名称`). */
  path: string;
  type: string;
  kind: SearchKind;
  options: DictOption[];
  /** The unit a condition's number is in: the item's first (main) unit. */
  unit: string;
  /** Every unit of a unit selector, the main one first: values kept in another are converted to the main one. */
  units: string[];
  operators: SearchOperator[];
  /** The list group or table whose rows hold the item; null for a value of the form itself. */
  group: { name: string; title: string; type: string } | null;
}
export interface DictCrf {
  crfId: number;
  title: string;
  repeatable: boolean;
  stages: Array<{ stageId: number; name: string }>;
  items: DictItem[];
}
export interface DictPatientField {
  field: PatientSearchField;
  title: string;
  kind: SearchKind;
  operators: SearchOperator[];
  options: DictOption[];
}

export interface Dictionary {
  patientFields: DictPatientField[];
  crfs: DictCrf[];
  /** Every form of the study, viewable or not: tells "not yours" from "no such form". */
  studyCrfIds: Set<number>;
  nodes: Map<number, Map<string, SearchableItem>>;
}

/**
 * What the caller may search in a study: the patient fields (identifiers only with 查看患者身份信息) and, of
 * every form the caller may view (the CRF page's rule), its items in their current version.
 */
export async function dictionary(ctx: AppContext, access: StudyAccess): Promise<Dictionary> {
  const studyId = access.studyId;
  const { forms, stages, links } = await studyFormLayout(ctx.db, studyId);
  const visible = forms.filter((f) => canViewCrf(access, f.id));
  const definitions = await definitionsOf(
    ctx.db,
    visible.map((f) => ({ crfId: f.id, version: f.version })),
  );
  const diseases = await ctx.db
    .select({ code: studyDiseases.diseaseCode, name: studyDiseases.diseaseName })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId))
    .orderBy(asc(studyDiseases.id));

  const nodes = new Map<number, Map<string, SearchableItem>>();
  const dictCrfs: DictCrf[] = [];
  const clear = seesIdentifiers(access);
  for (const form of visible) {
    const definition = definitions.get(versionKey(form.id, form.version));
    if (!definition) continue;
    const mine = links.filter((l) => l.crfId === form.id);
    const items = searchableItems(definition);
    nodes.set(form.id, new Map(items.map((i) => [i.node.name, i])));
    dictCrfs.push({
      crfId: form.id,
      title: form.title,
      repeatable: mine.some((l) => l.repeat !== 1),
      stages: stages.filter((s) => mine.some((l) => l.stageId === s.stageId)),
      // Identifier items are offered only with 查看患者身份信息 (a condition or column on one is a 403 without it).
      items: items
        .filter((found) => clear || !isIdentifierItem(found.node))
        .map((found): DictItem => {
          const { node, kind, group } = found;
          const units = unitsOf(node.option);
          return {
            name: node.name,
            title: node.title || node.option.title || node.name,
            path: searchItemPath(found),
            type: node.type,
            kind,
            options: kind === 'choice' || kind === 'multiChoice' ? choicesOf(node.option).map(toOption) : [],
            unit: units[0] ?? '',
            units,
            // 缺失原因: a form's own items are marked, never a list group's cells (search-missing.ts).
            operators: [...OPERATORS_BY_KIND[kind], ...(group ? [] : MISSING_SEARCH_OPERATORS)],
            group: group
              ? { name: group.name, title: group.title || group.option.title || group.name, type: group.type }
              : null,
          };
        }),
    });
  }
  const patientFields = PATIENT_SEARCH_FIELDS.filter((f) => clear || !f.identifier).map((f) => ({
    field: f.field,
    title: f.title,
    kind: f.kind,
    operators: [...patientFieldOperators(f.field)],
    options:
      f.field === 'diseaseCode'
        ? diseases.map((d) => ({ value: d.code, label: d.name }))
        : [...(PATIENT_FIXED_OPTIONS[f.field] ?? [])],
  }));
  return { patientFields, crfs: dictCrfs, studyCrfIds: new Set(forms.map((f) => f.id)), nodes };
}

const toOption = (c: { value: string; text: string }): DictOption => ({ value: c.value, label: c.text });

/** GET /api/business/search/dics: what the condition builder offers this caller. */
export async function searchDics(ctx: AppContext, access: StudyAccess) {
  const dict = await dictionary(ctx, access);
  const kinds = Object.keys(OPERATORS_BY_KIND) as SearchKind[];
  return {
    patientFields: dict.patientFields,
    crfs: dict.crfs,
    operators: SEARCH_OPERATORS.map((o) => ({ code: o.code, label: o.label, arity: o.arity })),
    operatorsByKind: Object.fromEntries(
      kinds.map((kind) => [kind, OPERATORS_BY_KIND[kind].map((code) => ({ code, label: operatorLabel(kind, code) }))]),
    ),
    formStates: FORM_STATE_FILTERS.map((s) => ({ code: s.code, label: s.label })),
    formStateOperators: FORM_STATE_OPERATORS.map((code) => ({ code, label: operatorLabel('choice', code) })),
    missingCodes: (await getMissingCodes(ctx, access.studyId)).map((c) => ({
      value: c.code,
      label: `${c.label}(${c.code})`,
    })),
    joins: SEARCH_JOINS,
    recordSeparator: RECORD_SEPARATOR,
    rowSeparator: SEARCH_ROW_SEPARATOR,
    pathSeparator: SEARCH_PATH_SEPARATOR,
  };
}

/** GET /api/business/search/export/crfs: the forms (with their stages) the caller may export, i.e. view. */
export async function exportableCrfs(ctx: AppContext, access: StudyAccess) {
  const dict = await dictionary(ctx, access);
  return dict.crfs.map((c) => ({
    crfId: c.crfId,
    title: c.title,
    repeatable: c.repeatable,
    stages: c.stages,
    itemCount: c.items.length,
    // Named to everyone (the 导出 dialog lists what a de-identified file leaves out); their values stay masked.
    identifierItems: [...(dict.nodes.get(c.crfId)?.values() ?? [])]
      .filter((found) => isIdentifierItem(found.node))
      .map(searchItemPath),
  }));
}
