import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { numericCodes, TEST_EXPORT_NOTICE, testExportLabel } from '@ecrf/core';
import { GENDER_LABELS, SUBJECT_STATE_LABELS, type ExportPlan } from './export-source.js';
import { writeWideCsv, type RowHook } from './export-csv.js';
import type { WriteContext, WrittenFile } from './export-writer-common.js';
import { writeSav } from './spss-sav.js';
import { writeDta } from './stata-dta.js';
import { spoolStatistics } from './statistics-table.js';

// The statistics packages: their own data files (SPSS .sav, Stata .dta, which R reads with haven), or the wide
// CSV (codes, no BOM) zipped with SPSS syntax, or with a Stata do-file and an R script.

type StatType = 'string' | 'number' | 'date' | 'datetime';

export interface StatVariable {
  name: string;
  label: string;
  type: StatType;
  /** Value labels: code → label (numeric codes when `numeric`). */
  values: Array<[string, string]>;
  numeric: boolean;
}

/** The wide file's columns as statistics variables, in header order. */
export function statVariables(plan: ExportPlan): StatVariable[] {
  const out: StatVariable[] = plan.patientColumns.map((c) => {
    if (c.name === 'gender') {
      return { name: c.name, label: c.title, type: 'number', values: Object.entries(GENDER_LABELS), numeric: true };
    }
    if (c.name === 'subject_state') {
      return {
        name: c.name,
        label: c.title,
        type: 'number',
        values: Object.entries(SUBJECT_STATE_LABELS),
        numeric: true,
      };
    }
    if (c.name === 'disease') {
      return { name: c.name, label: c.title, type: 'string', values: [...plan.diseases], numeric: false };
    }
    return { name: c.name, label: c.title, type: c.date ? 'date' : 'string', values: [], numeric: false };
  });
  out.push(
    { name: 'stage', label: '阶段', type: 'string', values: [], numeric: false },
    {
      name: 'crf',
      label: '重复表单（编号）',
      type: 'number',
      values: plan.forms.filter((f) => f.repeating).map((f) => [String(f.crfId), f.title]),
      numeric: true,
    },
    { name: 'instance', label: '记录序号', type: 'number', values: [], numeric: false },
  );
  for (const form of plan.forms) {
    for (const v of form.variables) {
      const label = v.unit ? `${v.title}（${v.unit}）` : v.title;
      switch (v.kind) {
        case 'check':
          out.push({
            name: v.name,
            label,
            type: 'number',
            values: [
              ['1', '已选'],
              ['0', '未选'],
            ],
            numeric: true,
          });
          break;
        case 'choice': {
          const numeric = numericCodes(v.choices);
          out.push({
            name: v.name,
            label,
            type: numeric ? 'number' : 'string',
            values: v.choices.map((c) => [c.value, c.text]),
            numeric,
          });
          break;
        }
        case 'number':
          out.push({ name: v.name, label, type: 'number', values: [], numeric: false });
          break;
        case 'date':
          out.push({ name: v.name, label, type: 'date', values: [], numeric: false });
          break;
        // The data files hold date-times as such; the syntax files read them as text, to convert as needed.
        case 'datetime':
          out.push({ name: v.name, label, type: 'datetime', values: [], numeric: false });
          break;
        // Partial dates, texts, and any other column the plan has, are text.
        case 'partialDate':
        case 'text':
        default:
          out.push({ name: v.name, label, type: 'string', values: [], numeric: false });
      }
    }
  }
  return out;
}

const spssText = (s: string) => `'${s.replace(/'/g, "''").replace(/[\r\n]+/g, ' ')}'`;

/**
 * SPSS syntax reading data.csv: GET DATA with every variable's format, VARIABLE LABELS, VALUE LABELS. A test
 * export (`testLabel`) says 测试数据 in a comment and in the file label (data.csv keeps its header in line 1).
 */
export function spssSyntax(
  vars: readonly StatVariable[],
  widths: ReadonlyMap<string, number>,
  testLabel: string | null = null,
): string {
  const lines = [
    '* Encoding: UTF-8.',
    ...(testLabel ? [`* ${TEST_EXPORT_NOTICE}.`] : []),
    '* 数据导出：在 data.csv 所在的文件夹中运行（或把 FILE 改为完整路径）.',
    'SET UNICODE=ON.',
    "GET DATA /TYPE=TXT /FILE='data.csv' /ENCODING='UTF8' /DELCASE=LINE /DELIMITERS=\",\" /QUALIFIER='\"'",
    '  /ARRANGEMENT=DELIMITED /FIRSTCASE=2 /VARIABLES=',
  ];
  for (const v of vars) {
    const format =
      v.type === 'number'
        ? v.numeric
          ? 'F8.0'
          : 'F16.4'
        : v.type === 'date'
          ? 'SDATE10'
          : `A${Math.max(1, Math.min(32767, widths.get(v.name) ?? 1))}`;
    lines.push(`  ${v.name} ${format}`);
  }
  lines.push('.', 'VARIABLE LABELS');
  lines.push(vars.map((v) => `  ${v.name} ${spssText(v.label)}`).join('\n') + '.');
  const labelled = vars.filter((v) => v.values.length > 0);
  if (labelled.length > 0) {
    lines.push('VALUE LABELS');
    lines.push(
      labelled
        .map(
          (v) =>
            `  ${v.name} ${v.values.map(([code, label]) => `${v.numeric ? code : spssText(code)} ${spssText(label)}`).join(' ')}`,
        )
        .join('\n  /') + '.',
    );
  }
  const dates = vars.filter((v) => v.type === 'date');
  if (dates.length > 0) lines.push(`FORMATS ${dates.map((v) => v.name).join(' ')} (SDATE10).`);
  // Unquoted: SPSS and PSPP take the rest of the command as the label.
  if (testLabel) lines.push(`FILE LABEL ${testLabel.replace(/[\r\n]+/g, ' ').replace(/\.+$/, '')}.`);
  lines.push('EXECUTE.', '');
  return lines.join('\n');
}

/** No line break ever reaches a do-file line: a label with one would end its command. */
const stataText = (s: string) =>
  `"${s
    .replace(/"/g, "'")
    .replace(/[\r\n]+/g, ' ')
    .slice(0, 80)}"`;

/**
 * A Stata do-file: import with string columns kept as strings, dates converted, labels defined and attached; a
 * test export (`testLabel`) says 测试数据 in a comment and in the data label.
 */
export function stataDo(vars: readonly StatVariable[], testLabel: string | null = null): string {
  const strings = vars.map((v, i) => (v.type === 'number' ? null : i + 1)).filter((i): i is number => i !== null);
  const lines = [
    '* 数据导出：在 data.csv 所在的文件夹中运行 do labels.do',
    ...(testLabel ? [`* ${TEST_EXPORT_NOTICE}`] : []),
    // bindquotes(strict): a quoted text holding line breaks stays one field of one row.
    `import delimited using "data.csv", varnames(1) encoding("utf-8") case(preserve) bindquotes(strict) clear${strings.length > 0 ? ` stringcols(${strings.join(' ')})` : ''}`,
    ...(testLabel ? [`label data ${stataText(testLabel)}`] : []),
  ];
  for (const v of vars.filter((x) => x.type === 'date')) {
    lines.push(`generate double _d = date(${v.name}, "YMD")`, `format _d %td`, `drop ${v.name}`, `rename _d ${v.name}`);
  }
  vars.forEach((v, i) => {
    lines.push(`label variable ${v.name} ${stataText(v.label)}`);
    if (v.values.length > 0 && v.numeric) {
      const name = `lbl${i + 1}`;
      lines.push(
        `label define ${name} ${v.values.map(([code, label]) => `${code} ${stataText(label)}`).join(' ')}, replace`,
      );
      lines.push(`label values ${v.name} ${name}`);
    } else if (v.values.length > 0) {
      // Stata labels numbers only: a text-coded choice keeps its codes; its labels are written as a note.
      lines.push(
        `notes ${v.name}: ${v.values
          .map(([code, label]) => `${code}=${label}`)
          .join('; ')
          .replace(/[\r\n"]/g, ' ')}`,
      );
    }
  });
  lines.push('');
  return lines.join('\n');
}

const rText = (s: string) => JSON.stringify(s);

/**
 * An R script: read.csv with text columns as character, dates as Date, choices as factors with their levels; a
 * test export (`testLabel`) says 测试数据 in a comment and in the data frame's label.
 */
export function rScript(vars: readonly StatVariable[], testLabel: string | null = null): string {
  const classes = vars
    .filter((v) => v.type !== 'number')
    .map((v) => `${rText(v.name)} = "character"`)
    .join(', ');
  const lines = [
    '# 数据导出：在 data.csv 所在的文件夹中 source("labels.R")',
    `data <- read.csv("data.csv", fileEncoding = "UTF-8", na.strings = "", check.names = FALSE, colClasses = c(${classes}))`,
  ];
  if (testLabel) lines.splice(1, 0, `# ${TEST_EXPORT_NOTICE}`);
  if (testLabel) lines.push(`attr(data, "label") <- ${rText(testLabel)}`);
  for (const v of vars) {
    const col = `data[[${rText(v.name)}]]`;
    if (v.type === 'date') lines.push(`${col} <- as.Date(${col})`);
    if (v.values.length > 0) {
      const levels = v.values.map(([code]) => (v.numeric ? code : rText(code))).join(', ');
      const labels = v.values.map(([, label]) => rText(label)).join(', ');
      lines.push(`${col} <- factor(${col}, levels = c(${levels}), labels = c(${labels}))`);
    }
    lines.push(`attr(${col}, "label") <- ${rText(v.label)}`);
  }
  lines.push('');
  return lines.join('\n');
}

async function zipFiles(target: string, files: Array<{ name: string; path: string }>) {
  const out = fs.createWriteStream(target);
  const { default: archiver } = await import('archiver');
  const zip = archiver('zip', { zlib: { level: 6 } });
  const done = finished(out);
  zip.pipe(out);
  for (const f of files) zip.append(fs.createReadStream(f.path), { name: f.name });
  await zip.finalize();
  await done;
}

/** The statistics formats: the packages' own data files, or the wide CSV with their syntax, zipped. */
export type StatisticsFormat = 'spss' | 'stata' | 'spssSyntax' | 'stataSyntax';

export async function writeStatistics(ctx: WriteContext, format: StatisticsFormat): Promise<WrittenFile> {
  const vars = statVariables(ctx.plan);
  const testLabel = ctx.test ? testExportLabel(ctx.studyName) : null;
  if (format === 'spss' || format === 'stata') {
    const data = await spoolStatistics(ctx, vars, path.join(ctx.dir, 'rows.jsonl'));
    const file = path.join(ctx.dir, format === 'spss' ? 'export.sav' : 'export.dta');
    const options = { now: ctx.now, timeZone: ctx.plan.timeZone };
    if (format === 'spss') await writeSav(file, data, options);
    else await writeDta(file, data, options);
    const contentType = format === 'spss' ? 'application/x-spss-sav' : 'application/x-stata-dta';
    return { path: file, contentType, rows: data.rowCount };
  }
  const widths = new Map<string, number>();
  const stringAt = vars.map((v, i) => (v.type === 'number' ? -1 : i)).filter((i) => i >= 0);
  const hook: RowHook = (row) => {
    for (const i of stringAt) {
      const cell = row[i];
      if (cell === null || cell === undefined) continue;
      // GET DATA ends a case at a line end even inside quotes: SPSS's CSV holds a line break as a space.
      const text = format === 'spssSyntax' ? String(cell).replace(/\r\n|\r|\n/g, ' ') : String(cell);
      if (format === 'spssSyntax') row[i] = text;
      const bytes = Buffer.byteLength(text);
      const name = vars[i]!.name;
      if (bytes > (widths.get(name) ?? 0)) widths.set(name, bytes);
    }
  };
  const data = path.join(ctx.dir, 'data.csv');
  const { rows } = await writeWideCsv(ctx, data, false, false, hook);
  const files = [{ name: 'data.csv', path: data }];
  if (format === 'spssSyntax') {
    const sps = path.join(ctx.dir, 'syntax.sps');
    await fs.promises.writeFile(sps, spssSyntax(vars, widths, testLabel));
    files.push({ name: 'syntax.sps', path: sps });
  } else {
    const doFile = path.join(ctx.dir, 'labels.do');
    const rFile = path.join(ctx.dir, 'labels.R');
    await fs.promises.writeFile(doFile, stataDo(vars, testLabel));
    await fs.promises.writeFile(rFile, rScript(vars, testLabel));
    files.push({ name: 'labels.do', path: doFile }, { name: 'labels.R', path: rFile });
  }
  const target = path.join(ctx.dir, 'export.zip');
  await zipFiles(target, files);
  return { path: target, contentType: 'application/zip', rows };
}
