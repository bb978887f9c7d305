// Compiling conditions to SQL. Every value and every item name reaches the database as a bound parameter; the only
// SQL text here is constant. Names and operators are first checked against the caller's dictionary.
import { and, or, sql, type SQL } from 'drizzle-orm';
import {
  conditionIssue,
  FILE_DOWNLOAD_PATH,
  isIdentifierItem,
  normalizeIdNumber,
  operatorLabel,
  roundConverted,
  searchColumnKey,
  todayString,
  toNumber,
  unitFactor,
  unitKey,
  unitsOf,
  type CrfNode,
  type PatientSearchField,
  type SearchableItem,
  type SearchColumn,
  type SearchCondition,
  type SearchConditions,
  type SearchKind,
  type SearchOperator,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, doubts, signatures, storedFiles, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { OBJECT_DOMAIN } from '../files/object-upload.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import {
  dictionary,
  type DictCrf,
  type DictItem,
  type DictPatientField,
  type Dictionary,
} from './search-dictionary.js';

/** The form-level SDV mark kept in a record's `sdv` (crf-data.service.ts). */
const FORM_SDV_KEY = '__form__';
/** Queries: 1 is closed (doubt.service.ts OPTION). */
const DOUBT_CLOSED = 1;

const invalid = (msg: string) => AppError.badRequest('search.invalid', msg);
const forbiddenCrf = () =>
  AppError.forbidden('search.crf_forbidden', '无权检索或显示该表单的数据（没有该表单的查看权限）');
const forbiddenIdentifier = () =>
  AppError.forbidden('search.identifier_forbidden', '无权按患者身份信息检索或显示（需要“查看患者身份信息”权限）');

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const textParams = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}::text`),
    sql`, `,
  );
const textArray = (values: readonly string[]) => sql`array[${textParams(values)}]::text[]`;

/** What a stored text must look like to be read as a number: the cast after it then cannot fail. */
export const NUMBER_TEXT_PATTERN = '^ *-?[0-9]+([.][0-9]+)? *$';
/** A stored text as a number when it reads as one, else null. The pattern is a constant, kept in the SQL text. */
const asNumber = (text: SQL) =>
  sql`(case when ${text} ~ ${sql.raw(`'${NUMBER_TEXT_PATTERN}'`)} then trim(${text})::numeric end)`;
/** A stored text as its YYYY-MM-DD part when it starts with a full date (partial dates never compare). */
const asDate = (text: SQL) => sql`(case when ${text} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' then left(${text}, 10) end)`;
const filled = (text: SQL) => sql`coalesce(${text}, '') not in ('', '[]', 'null')`;

/**
 * A comparison on one value: `text` the stored text, `list` the chosen options of a multiple choice, `number` the
 * value as a number in the item's main unit (default: the text read as a number).
 * 不等于 matches only filled values that differ: "empty" is asked with 为空.
 */
function comparison(
  kind: SearchKind,
  op: SearchOperator,
  operand: { text: SQL; list?: SQL; number?: SQL },
  values: string[],
): SQL {
  const { text, list } = operand;
  const v = values.map((x) => x.trim());
  if (kind === 'multiChoice' && (op === 'contains' || op === 'in')) {
    return op === 'contains' ? sql`${list!} @> ${textArray(v)}` : sql`${list!} && ${textArray(v)}`;
  }
  if (kind === 'number' || kind === 'date') {
    const left = kind === 'number' ? (operand.number ?? asNumber(text)) : asDate(text);
    const p = (x: string) => (kind === 'number' ? sql`${x}::numeric` : sql`${x}::text`);
    if (op === 'between') return sql`${left} between ${p(v[0]!)} and ${p(v[1]!)}`;
    const operator = ORDERED[op];
    if (operator) return sql`${left} ${sql.raw(operator)} ${p(v[0]!)}`;
  }
  if (op === 'eq') return sql`${text} = ${v[0]!}::text`;
  if (op === 'ne') return sql`(${text} <> ${v[0]!}::text and ${text} <> '')`;
  if (op === 'in') return sql`${text} in (${textParams(v)})`;
  if (op === 'contains') return sql`${text} ilike ${`%${likeEscape(values[0]!)}%`}::text`;
  throw invalid(`该字段不支持“${operatorLabel(kind, op)}”`);
}

/** SQL comparison operators of the ordered kinds: constants chosen by a validated code, never input. */
const ORDERED: Partial<Record<SearchOperator, string>> = { eq: '=', ne: '<>', gt: '>', lt: '<' };

export interface CompileContext {
  ctx: AppContext;
  access: StudyAccess;
  dict: Dictionary;
  today: string;
}

function crfOf(c: CompileContext, crfId: number, stageId?: number | null): DictCrf {
  const crf = c.dict.crfs.find((f) => f.crfId === crfId);
  if (!crf) {
    if (c.dict.studyCrfIds.has(crfId)) throw forbiddenCrf();
    throw invalid('检索条件中的表单不存在');
  }
  if (stageId && !crf.stages.some((s) => s.stageId === stageId)) throw invalid(`表单“${crf.title}”不属于所选阶段`);
  return crf;
}

function patientFieldOf(c: CompileContext, field: PatientSearchField): DictPatientField {
  const found = c.dict.patientFields.find((f) => f.field === field);
  if (!found) throw forbiddenIdentifier();
  return found;
}

/** The stored text of a patient field, as SQL over subjects/subject_records. */
export function patientText(c: CompileContext, field: PatientSearchField): SQL {
  switch (field) {
    case 'identificationCode':
      return sql`${subjects.identificationCode}`;
    case 'subjectName':
      return sql`${subjects.subjectName}`;
    case 'gender':
      return sql`${subjects.gender}::text`;
    case 'birth':
      return sql`${subjects.birth}`;
    case 'age':
      // Whole years on the study's today, as the patient list computes them (core ageFromBirth).
      return sql`(case when ${subjects.birth} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then extract(year from age(${c.today}::date, ${subjects.birth}::date))::text end)`;
    case 'mobile':
      return sql`${subjects.mobile}`;
    case 'idNumber':
      return sql`${subjects.idNumberHash}`;
    case 'diseaseCode':
      return sql`${subjects.diseaseCode}`;
    case 'state':
      return sql`${subjectRecords.state}::text`;
    case 'createTime':
      return sql`to_char(${subjects.createdAt} at time zone ${c.access.timeZone}::text, 'YYYY-MM-DD')`;
  }
}

/** `subject_records.id in (the patients with a live record of the form matching `where`)`. */
function hasRecord(c: CompileContext, crfId: number, where?: SQL): SQL {
  const r = crfDataRecords;
  return sql`${subjectRecords.id} in (select ${r.subjectRecordId} from ${r} where ${r.studyId} = ${c.access.studyId} and ${r.crfId} = ${crfId} and ${r.deletedAt} is null${where ? sql` and ${where}` : sql``})`;
}

function compileCondition(c: CompileContext, condition: SearchCondition): SQL {
  if (condition.kind === 'patient') {
    const field = patientFieldOf(c, condition.field);
    const options = field.options.length > 0 ? field.options.map((o) => o.value) : undefined;
    const issue = conditionIssue(field.kind, condition.operator, condition.values, field.operators, options);
    if (issue) throw invalid(`${field.title}：${issue}`);
    const text = patientText(c, condition.field);
    if (condition.operator === 'empty') return sql`not (${filled(text)})`;
    if (condition.operator === 'notEmpty') return filled(text);
    if (condition.field === 'idNumber') {
      // Matched by the keyed hash of the normalised number: the clear number is never stored or compared.
      return sql`${text} = ${c.ctx.fieldCrypto.hash(normalizeIdNumber(condition.values[0]!))}::text`;
    }
    return comparison(field.kind, condition.operator, { text }, condition.values);
  }
  if (condition.kind === 'formState') {
    const crf = crfOf(c, condition.crfId, condition.stageId);
    const state = condition.values[0]!;
    const r = crfDataRecords;
    let match: SQL;
    switch (state) {
      case 'notFilled':
        match = sql`not (${hasRecord(c, crf.crfId)})`;
        break;
      case 'saved':
        match = hasRecord(c, crf.crfId, sql`${r.state} <> 2`);
        break;
      case 'submitted':
        match = sql`(${hasRecord(c, crf.crfId)} and not (${hasRecord(c, crf.crfId, sql`${r.state} <> 2`)}))`;
        break;
      case 'doubt':
        match = sql`${subjectRecords.id} in (select ${doubts.subjectRecordId} from ${doubts} inner join ${r} on ${r.id} = ${doubts.crfDataRecordId} and ${r.deletedAt} is null where ${doubts.studyId} = ${c.access.studyId} and ${doubts.crfId} = ${crf.crfId} and ${doubts.optionType} <> ${DOUBT_CLOSED})`;
        break;
      case 'signed':
        match = sql`(${hasRecord(c, crf.crfId)} and ${subjectRecords.id} in (select ${signatures.subjectRecordId} from ${signatures} where ${signatures.studyId} = ${c.access.studyId} and ${signatures.invalidatedAt} is null))`;
        break;
      case 'sdv':
        match = sql`(${hasRecord(c, crf.crfId)} and not (${hasRecord(c, crf.crfId, sql`(${r.sdv} -> ${FORM_SDV_KEY}::text) is null`)}))`;
        break;
    }
    return condition.operator === 'ne' ? sql`not (${match})` : match;
  }
  return compileItem(c, itemOf(c, condition));
}

type ItemCondition = Extract<SearchCondition, { kind: 'item' }>;

/** An item condition checked against the caller's dictionary: its form, its item (and list group), its values. */
interface ItemRef {
  condition: ItemCondition;
  crf: DictCrf;
  item: DictItem;
  found: SearchableItem;
}

/** An identifier item is searched and shown only with 查看患者身份信息, as the patient's own identifiers are. */
function checkIdentifierItem(c: CompileContext, found: SearchableItem | undefined) {
  if (found && isIdentifierItem(found.node) && !seesIdentifiers(c.access)) throw forbiddenIdentifier();
}

function itemOf(c: CompileContext, condition: ItemCondition): ItemRef {
  const crf = crfOf(c, condition.crfId, condition.stageId);
  const found = c.dict.nodes.get(crf.crfId)?.get(condition.itemName);
  checkIdentifierItem(c, found);
  const item = crf.items.find((i) => i.name === condition.itemName);
  if (!item || !found) throw invalid(`表单“${crf.title}”中没有可检索的变量 ${condition.itemName}`);
  const options = item.options.length > 0 ? item.options.map((o) => o.value) : undefined;
  const issue = conditionIssue(item.kind, condition.operator, condition.values, item.operators, options);
  if (issue) throw invalid(`${item.path}：${issue}`);
  return { condition, crf, item, found };
}

/**
 * One item's value in a jsonb object (`source`): a record's `values`, or one row of a list group or table (whose
 * unit and addition are kept in the row beside the value, as in a record).
 */
interface ValueSql {
  source: SQL;
  node: CrfNode;
  raw: SQL;
  text: SQL;
}

function valueIn(source: SQL, node: CrfNode): ValueSql {
  return {
    source,
    node,
    raw: sql`(${source} -> ${node.name}::text)`,
    text: sql`(${source} ->> ${node.name}::text)`,
  };
}

/** The chosen options of a multiple choice: a checkbox's array, or a multi-select's comma text. */
const choiceList = (v: ValueSql) =>
  sql`(case when jsonb_typeof(${v.raw}) = 'array' then array(select jsonb_array_elements_text(${v.raw})) else string_to_array(${v.text}, ',') end)`;

/**
 * A number in the item's main (first) unit. An item with a unit selector keeps the unit chosen beside the value
 * (`<name>_unit`, absent or empty for the main unit) and the value as entered in it, so a value in another unit is
 * converted by core's factor (units.ts, with the item's molarMass between mass and substance concentrations).
 * A unit with no known conversion to the main one, or a unit the current definition does not list, gives null:
 * such a value matches no comparison (only 为空/不为空), rather than being compared in the wrong unit.
 */
function numberOf(v: ValueSql): SQL {
  const n = asNumber(v.text);
  const units = unitsOf(v.node.option);
  if (units.length < 2) return n;
  const main = units[0]!;
  const molarMass = toNumber(v.node.option.molarMass);
  const chosen = sql`coalesce(${v.source} ->> ${unitKey(v.node.name)}::text, '')`;
  const branches = units.slice(1).map((unit) => {
    const factor = unitFactor(unit, main, molarMass);
    return factor === null
      ? sql`when ${unit}::text then null`
      : sql`when ${unit}::text then ${n} * ${String(roundConverted(factor))}::numeric`;
  });
  return sql`(case ${chosen} when '' then ${n} when ${main}::text then ${n} ${sql.join(branches, sql` `)} else null end)`;
}

/** The download call's address names a stored file in its `fileKey` (core storedFileKey). */
const DOWNLOAD_KEY_PATTERN = `${FILE_DOWNLOAD_PATH}[?](?:[^#]*&)?fileKey=([^&#]*)`;

/**
 * The file references of an upload's value, as a FROM item `file_refs(ref)` of the non-empty references: a file
 * item's text, or the entries of an image or video list (value-shapes.ts: stored as JSON text of entry objects,
 * read leniently as an array, or plain URLs). Stored values are the engine's canonical shapes, written by
 * JSON.stringify, so the JSON text cast cannot fail.
 */
function fileRefs(v: ValueSql): SQL {
  if (v.node.type === 'fileUpload') {
    return sql`(select btrim(${v.text}) as ref) as file_refs`;
  }
  const urlKey = v.node.type === 'imageUpload' ? 'dialogImgUrl' : 'dialogVideoUrl';
  const text = sql`(${v.raw} #>> '{}')`;
  const entries = sql`(case jsonb_typeof(${v.raw}) when 'array' then ${v.raw} when 'string' then (case when ${text} ~ '^[[:space:]]*[[]' then ${text}::jsonb when btrim(${text}) <> '' then jsonb_build_array(${v.raw}) else '[]'::jsonb end) else '[]'::jsonb end)`;
  return sql`(select (case jsonb_typeof(media.e) when 'string' then media.e #>> '{}' else coalesce(media.e ->> ${urlKey}::text, media.e ->> 'url') end) as ref from jsonb_array_elements(${entries}) as media(e)) as file_refs`;
}

/**
 * A reference's file name as the casebook shows it (core fileLabel): a stored file's name as uploaded (a key, the
 * download call's address, or an object address), else the last part of the address (not URL-decoded).
 */
function fileName(c: CompileContext, ref: SQL): SQL {
  // An object address (external mode) names the stored file whose key derives from its object key (objectFileKey).
  const objectKey = sql`substr(${ref}, ${OBJECT_DOMAIN.length + 1}::int)`;
  const objectFile = sql`left(encode(sha256(convert_to('object:' || ${objectKey}, 'UTF8')), 'hex'), 32)`;
  const key = sql`(case when ${ref} !~ '/' then ${ref} when left(${ref}, ${OBJECT_DOMAIN.length}::int) = ${OBJECT_DOMAIN}::text then ${objectFile} else substring(${ref} from ${DOWNLOAD_KEY_PATTERN}::text) end)`;
  const label = sql`(case when ${ref} !~ '/' then ${ref} else regexp_replace(split_part(${ref}, '?', 1), '^.*/', '') end)`;
  return sql`coalesce((select ${storedFiles.fileName} from ${storedFiles} where ${storedFiles.studyId} = ${c.access.studyId} and ${storedFiles.fileKey} = ${key}), ${label})`;
}

/** Whether the value holds something: a file for an upload, any text otherwise. */
function filledOf(v: ValueSql, kind: SearchKind): SQL {
  if (kind === 'file') return sql`exists (select 1 from ${fileRefs(v)} where coalesce(file_refs.ref, '') <> '')`;
  return filled(v.text);
}

/** One condition on one value (of a record, or of a row): 为空 and 不为空 included, judged on this value only. */
function predicate(c: CompileContext, ref: ItemRef, v: ValueSql): SQL {
  const { operator, values } = ref.condition;
  const kind = ref.item.kind;
  if (operator === 'empty') return sql`not (${filledOf(v, kind)})`;
  if (operator === 'notEmpty') return filledOf(v, kind);
  if (kind === 'file') {
    const pattern = `%${likeEscape(values[0]!.trim())}%`;
    return sql`exists (select 1 from ${fileRefs(v)} where coalesce(file_refs.ref, '') <> '' and ${fileName(c, sql`file_refs.ref`)} ilike ${pattern}::text)`;
  }
  const number = kind === 'number' ? numberOf(v) : undefined;
  return comparison(kind, operator, { text: v.text, list: choiceList(v), number }, values);
}

/** A row of a list group or table, inside `rowExists`. */
const ROW = sql`search_row.v`;

/** `exists` a row of the record's list group (or table) `group` for which `where` holds. */
function rowExists(group: CrfNode, where: SQL): SQL {
  const rows = sql`(${crfDataRecords.values} -> ${group.name}::text)`;
  return sql`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(${rows}) = 'array' then ${rows} else '[]'::jsonb end) as search_row(v) where jsonb_typeof(search_row.v) = 'object' and ${where})`;
}

/** 缺失原因 (search-missing.ts): whether a record marks `name`, with one of `codes` when given. */
function marked(name: string, codes?: readonly string[]): SQL {
  const r = crfDataRecords;
  if (!codes) return sql`(${r.missing} ? ${name}::text)`;
  return sql`(${r.missing} ->> ${name}::text) in (${textParams(codes.map((code) => code.trim()))})`;
}

/**
 * An item condition on its own. A patient matches when any live record of the form (and, for a list-group or table
 * column, any row of it) matches; 为空: no record (no row) holds a value and none marks the item missing, so an item
 * marked missing is neither 为空 nor 不为空 (search-missing.ts).
 */
function compileItem(c: CompileContext, ref: ItemRef): SQL {
  const { crf, found, condition } = ref;
  const group = found.group;
  const v = valueIn(group ? ROW : sql`${crfDataRecords.values}`, found.node);
  const within = (where: SQL) => hasRecord(c, crf.crfId, group ? rowExists(group, where) : where);
  if (condition.operator === 'missingAny') return hasRecord(c, crf.crfId, marked(found.node.name));
  if (condition.operator === 'missing') return hasRecord(c, crf.crfId, marked(found.node.name, condition.values));
  if (condition.operator === 'empty') {
    // 为空 is nothing recorded: an item (or the list group holding the column) marked missing is not a gap.
    const markedHere = hasRecord(c, crf.crfId, marked((group ?? found.node).name));
    return sql`not (${within(filledOf(v, ref.item.kind))} or ${markedHere})`;
  }
  if (condition.operator === 'notEmpty') return within(filledOf(v, ref.item.kind));
  return within(predicate(c, ref, v));
}

/**
 * Conditions on columns of one list group (or table) joined by 且 in one condition group: they must hold in the
 * same row (of one record). Within that row, 为空 means this row's cell is empty.
 */
function compileSameRow(c: CompileContext, refs: readonly ItemRef[]): SQL {
  const group = refs[0]!.found.group!;
  const where = and(...refs.map((ref) => predicate(c, ref, valueIn(ROW, ref.found.node))))!;
  return hasRecord(c, refs[0]!.crf.crfId, rowExists(group, where));
}

/**
 * One condition group. Joined by 且, the conditions on columns of the same list group or table of the same form are
 * judged together on each row (compileSameRow) when at least one of them is not 为空 (a row to look at); the others,
 * and every condition of a group joined by 或, are judged on their own.
 */
function compileGroup(c: CompileContext, group: SearchConditions['groups'][number]): SQL {
  if (group.join === 'or') return or(...group.conditions.map((cond) => compileCondition(c, cond)))!;
  const slots: Array<SQL | ItemRef[]> = [];
  const bundles = new Map<string, ItemRef[]>();
  for (const condition of group.conditions) {
    if (condition.kind !== 'item') {
      slots.push(compileCondition(c, condition));
      continue;
    }
    const ref = itemOf(c, condition);
    if (!ref.found.group) {
      slots.push(compileItem(c, ref));
      continue;
    }
    const key = `${ref.crf.crfId}:${ref.found.group.name}`;
    let bundle = bundles.get(key);
    if (!bundle) {
      bundle = [];
      bundles.set(key, bundle);
      slots.push(bundle);
    }
    bundle.push(ref);
  }
  const parts = slots.flatMap((slot) => {
    if (!Array.isArray(slot)) return [slot];
    const anchored = slot.some((ref) => ref.condition.operator !== 'empty');
    return slot.length > 1 && anchored ? [compileSameRow(c, slot)] : slot.map((ref) => compileItem(c, ref));
  });
  return and(...parts)!;
}

function compileConditions(c: CompileContext, conditions: SearchConditions): SQL | undefined {
  const groups = conditions.groups.map((g) => compileGroup(c, g));
  if (groups.length === 0) return undefined;
  return conditions.join === 'or' ? or(...groups) : and(...groups);
}

interface ResolvedColumn {
  key: string;
  title: string;
  column: SearchColumn;
  crfTitle?: string;
  unit?: string;
  repeatable?: boolean;
}

function resolveColumns(c: CompileContext, columns: readonly SearchColumn[]): ResolvedColumn[] {
  const seen = new Set<string>();
  const out: ResolvedColumn[] = [];
  for (const column of columns) {
    const key = searchColumnKey(column);
    if (seen.has(key)) continue;
    seen.add(key);
    if (column.kind === 'patient') {
      out.push({ key, title: patientFieldOf(c, column.field).title, column });
      continue;
    }
    const crf = crfOf(c, column.crfId);
    checkIdentifierItem(c, c.dict.nodes.get(crf.crfId)?.get(column.itemName));
    const item = crf.items.find((i) => i.name === column.itemName);
    if (!item) throw invalid(`表单“${crf.title}”中没有可显示的变量 ${column.itemName}`);
    out.push({ key, title: item.path, column, crfTitle: crf.title, unit: item.unit, repeatable: crf.repeatable });
  }
  return out;
}

export async function compile(
  ctx: AppContext,
  access: StudyAccess,
  conditions: SearchConditions,
  columns: readonly SearchColumn[],
) {
  const c: CompileContext = {
    ctx,
    access,
    dict: await dictionary(ctx, access),
    today: todayString(ctx.clock(), access.timeZone),
  };
  return { c, where: compileConditions(c, conditions), columns: resolveColumns(c, columns) };
}
