/**
 * What an ODM file says about a study beyond its forms, which a CRF import does not carry over: study events
 * (visits, our stages), REDCap's arms, and repeating forms (ODM's Repeating FormDefs, REDCap's repeating
 * instruments). A project sets those up itself; the import says each is dropped rather than dropping it silently.
 */
import type { ImportIssue } from './import-result.js';
import { attr, list, type XmlNode } from './odm-xml.js';

/** One element or several (the parser makes arrays only of the names it is told). */
const many = (node: XmlNode | undefined, name: string): XmlNode[] => {
  const value = node?.[name];
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is XmlNode => typeof v === 'object');
};

const names = (values: Array<string | undefined>) => [...new Set(values.filter((v): v is string => Boolean(v)))];

export function odmStructureWarnings(study: XmlNode | undefined, mdv: XmlNode): ImportIssue[] {
  const issues: ImportIssue[] = [];
  const warn = (message: string) => issues.push({ severity: 'warning', message });
  const events = many(mdv, 'StudyEventDef');
  if (events.length > 0) {
    const labels = names(events.map((e) => attr(e, 'Name') ?? attr(e, 'OID')));
    warn(`文件中的访视/事件（StudyEventDef）未导入：${labels.join('、')}。CRF 导入只读取表单，阶段请在项目中设置`);
  }
  const arms = names(events.map((e) => attr(e, 'ArmName') ?? (attr(e, 'ArmNum') ? `Arm ${attr(e, 'ArmNum')}` : '')));
  if (arms.length > 0) warn(`文件中的分组（Arm）未导入：${arms.join('、')}`);
  const formName = new Map(
    list(mdv, 'FormDef').map((f) => [attr(f, 'FormName') ?? attr(f, 'OID') ?? '', attr(f, 'Name') ?? '']),
  );
  const repeatingForms = list(mdv, 'FormDef')
    .filter((f) => attr(f, 'Repeating') === 'Yes')
    .map((f) => attr(f, 'Name') ?? attr(f, 'OID'));
  const globals = many(study, 'GlobalVariables')[0];
  const redcapRepeating = many(globals, 'RepeatingInstrumentsAndEvents').flatMap((r) => [
    ...many(r, 'RepeatingInstruments')
      .flatMap((i) => many(i, 'RepeatingInstrument'))
      .map((i) => {
        const form = attr(i, 'RepeatInstrument') ?? '';
        return formName.get(form) || form;
      }),
    ...many(r, 'RepeatingEvents')
      .flatMap((e) => many(e, 'RepeatingEvent'))
      .map((e) => `事件 ${attr(e, 'UniqueEventName') ?? ''}`),
  ]);
  const repeating = names([...repeatingForms, ...redcapRepeating]);
  if (repeating.length > 0) {
    warn(`文件中的重复表单设置未导入：${repeating.join('、')}。请在项目阶段中把表单设为可重复`);
  }
  return issues;
}
