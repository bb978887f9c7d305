// filterLogic: REDCap logic over one exported row (a record in one event, or one instance of a repeating form).
import {
  compileExpression,
  ExpressionError,
  nowString,
  readChoiceList,
  recordEnv,
  todayString,
  truthy,
  type CompiledExpression,
  type CrfNode,
} from '@ecrf/core';
import { translateRedcapLogic } from '@ecrf/core/interop';
import { ApiRefusal } from './api-token.service.js';
import { RECORD_ID, type Field, type Instrument, type Project } from './redcap-project.js';

export interface RecordFilter {
  compiled: CompiledExpression;
  today: string;
  now: string;
  /** `[event][field]` references, by the variable standing for each in the compiled logic. */
  references: Map<string, { event: string; field: Field }>;
}

const NUMBER_TYPES = new Set<CrfNode['type']>(['int', 'real', 'number', 'slider']);

const refused = (reason: string) => new ApiRefusal(400, `参数 filterLogic 无法执行：${reason}`);

/** REDCap's `[event][field]` and `[event][field(code)]`: the event's unique name, then a field. */
const EVENT_REFERENCE = /\[([^[\]]+)\]\s*\[([A-Za-z0-9_]+)(\([^)\]]*\))?\]/g;

/**
 * `[event][field]` as a variable of its own, REDCap's smart syntax for a field in a named event: each becomes a
 * fresh name the translator reads as that field. An event that is not the project's, or a reference left over
 * (an instance number, `[field][2]`), is refused.
 */
function eventReferences(project: Project, logic: string) {
  const references = new Map<string, { event: string; field: Field }>();
  const events = new Set(project.events.map((e) => e.name));
  let next = 0;
  const rewritten = logic.replace(EVENT_REFERENCE, (_m, rawEvent: string, variable: string, code?: string) => {
    const event = rawEvent.trim();
    if (!events.has(event)) {
      throw refused(
        project.longitudinal
          ? `[${event}] 不是本项目事件的唯一名称（事件见 content=event；不支持实例号 [字段][n]）`
          : `项目没有阶段（不是纵向项目），不能引用事件 [${event}]`,
      );
    }
    const field = project.byVariable.get(variable);
    if (!field?.source.item) throw refused(`引用的字段不存在或无权查看：${variable}`);
    let alias: string;
    do alias = `event${(next += 1)}__${variable}`;
    while (project.byVariable.has(alias));
    references.set(alias, { event, field });
    return `[${alias}${code ?? ''}]`;
  });
  if (/\]\s*\[/.test(rewritten)) throw refused('不支持重复实例的引用（[字段][实例号]）');
  return { rewritten, references };
}

/**
 * filterLogic in REDCap's logic syntax, through the dictionary importer's translator into our expression
 * language: the same reading of blanks as REDCap's. Fields are those the caller may see (a hidden one is
 * "not found"); `[event][field]` reads the field in that event. Logic that cannot be translated (smart
 * variables, functions we do not have) is refused with the reason, never evaluated loosely.
 */
export function compileFilter(project: Project, logic: string, now: Date, timeZone: string): RecordFilter {
  const { rewritten, references } = eventReferences(project, logic);
  const known = (variable: string) => {
    if (variable === RECORD_ID) return true;
    const field = references.get(variable)?.field ?? project.byVariable.get(variable);
    if (!field?.source.item) return undefined;
    const validation = field.row.validation;
    return (field.node && NUMBER_TYPES.has(field.node.type)) || /^(integer|number)/.test(validation)
      ? ('number' as const)
      : true;
  };
  const translated = translateRedcapLogic(rewritten, known);
  if (!translated.ok) throw refused(translated.reason);
  try {
    return {
      compiled: compileExpression(translated.expression),
      today: todayString(now, timeZone),
      now: nowString(now, timeZone),
      references,
    };
  } catch (err) {
    if (err instanceof ExpressionError) throw refused(err.message);
    throw err;
  }
}

/** A value as filterLogic reads it: a checkbox as its list of codes (for [field(code)]), else as stored. */
const filterValue = (field: Field, value: unknown): unknown => (field.codes ? readChoiceList(value) : value);

/** One exported row as filterLogic sees it: its event and, on a repeating row, the instance it is. */
export interface FilterRow {
  event: string | null;
  instance: { instrument: Instrument; values: Record<string, unknown> } | null;
}

/**
 * Whether the logic holds on one row of one record, as REDCap evaluates it per record-event: `[field]` is the
 * field in the row's own event (blank when its form is in another event), on a repeating row that instance's;
 * `[event][field]` the field in the named event, whatever the row's. `single` gives the record's value of a field
 * of a non-repeating form.
 */
export function filterHolds(
  project: Project,
  filter: RecordFilter,
  code: string,
  row: FilterRow,
  single: (field: Field) => unknown,
): boolean {
  const valueIn = (field: Field, event: string | null) => {
    if (project.longitudinal && field.instrument.event !== event) return undefined;
    if (row.instance?.instrument === field.instrument) return row.instance.values[field.source.item!];
    if (field.instrument.repeating || field.instrument.rows) return undefined;
    return single(field);
  };
  const scope: Record<string, unknown> = { [RECORD_ID]: code };
  for (const field of project.fields) {
    if (field.source.item) scope[field.row.variable] = filterValue(field, valueIn(field, row.event));
  }
  for (const [alias, { event, field }] of filter.references) {
    // Another event's row has no instance of this repeating form: its instances are that event's rows.
    const here = event === row.event ? valueIn(field, event) : undefined;
    const value = field.instrument.repeating || field.instrument.rows ? here : valueIn(field, event);
    scope[alias] = filterValue(field, value);
  }
  return truthy(filter.compiled.evaluate(recordEnv(scope, { today: filter.today, now: filter.now })));
}
