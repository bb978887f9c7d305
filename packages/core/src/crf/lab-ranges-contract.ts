import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { studyIdQuerySchema } from '../request-fields.js';

/**
 * The HTTP contract of 参考范围 (issue 37): a site loads its laboratory's reference ranges (by hand or from an Excel
 * or CSV file), lists, edits and deletes them; a change or deletion names its reason.
 */

export const LAB_RANGE_MSG = {
  created: '参考范围已添加',
  updated: '参考范围已修改',
  deleted: '参考范围已删除',
  imported: '参考范围已导入',
  notFound: '参考范围不存在',
  otherSite: '该分中心不在您的数据范围内',
  noSite: '分中心不存在',
  importRefused: '文件中有不能导入的行，请修改后重新导入',
  noRows: '文件中没有参考范围',
  badFile: '无法读取文件，请上传 Excel（.xlsx）或 CSV 文件',
  boundsOrder: '下限不能大于上限',
  ageOrder: '年龄下限须小于年龄上限',
  needBound: '下限与上限至少填写一个',
} as const;

/** The import file's columns, in the template's order. */
export const LAB_RANGE_COLUMNS = [
  '分中心',
  '项目代码',
  '项目名称',
  '单位',
  '性别',
  '年龄下限',
  '年龄上限',
  '下限',
  '上限',
  '生效日期',
] as const;

const dateText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, '日期格式应为 yyyy-MM-dd');
const bound = z.number().finite().nullable();

/** One range as a person enters it. Sex: null both, 1 male, 2 female; age band in years, [ageMin, ageMax). */
const labRangeFields = {
  siteId: rowIdSchema,
  analyte: z.string().trim().min(1, '请填写项目代码').max(40),
  analyteName: z.string().trim().max(100).nullish(),
  unit: z.string().trim().max(30).nullish(),
  sex: z.union([z.literal(1), z.literal(2)]).nullable(),
  ageMin: z.number().finite().min(0).nullable(),
  ageMax: z.number().finite().min(0).nullable(),
  lower: bound,
  upper: bound,
  effectiveFrom: dateText,
};

const checked = <
  T extends z.ZodType<{ lower: number | null; upper: number | null; ageMin: number | null; ageMax: number | null }>,
>(
  schema: T,
) =>
  schema.superRefine((v, ctx) => {
    for (const issue of labRangeIssues(v)) ctx.addIssue({ code: 'custom', message: issue });
  });

/** The rules of one range beyond its fields' types: the bounds' and the age band's order. */
export function labRangeIssues(v: {
  lower: number | null;
  upper: number | null;
  ageMin: number | null;
  ageMax: number | null;
}): string[] {
  const out: string[] = [];
  if (v.lower === null && v.upper === null) out.push(LAB_RANGE_MSG.needBound);
  if (v.lower !== null && v.upper !== null && v.lower > v.upper) out.push(LAB_RANGE_MSG.boundsOrder);
  if (v.ageMin !== null && v.ageMax !== null && v.ageMin >= v.ageMax) out.push(LAB_RANGE_MSG.ageOrder);
  return out;
}

export const labRangeCreateBodySchema = checked(z.object({ studyId: rowIdSchema, ...labRangeFields }));
export type LabRangeCreateBody = z.infer<typeof labRangeCreateBodySchema>;
export const labRangeUpdateBodySchema = checked(
  z.object({
    studyId: rowIdSchema,
    ...labRangeFields,
    reason: z.string().trim().min(1, '请填写修改原因').max(200),
  }),
);
export type LabRangeUpdateBody = z.infer<typeof labRangeUpdateBodySchema>;
export const labRangeDeleteQuerySchema = studyIdQuerySchema.extend({
  reason: z.string().trim().min(1, '请填写删除原因').max(200),
});
export const labRangeListQuerySchema = studyIdQuerySchema.extend({
  siteId: rowIdTextSchema.optional(),
  analyte: z.string().trim().max(40).optional(),
});
/**
 * The site ranges a form's save would judge by today (GET /api/business/lab-ranges/applicable): the form page judges
 * by them before the record's first save. crfDataRecordId: an existing record (its version, values, first-save date).
 */
export const labRangeApplicableQuerySchema = studyIdQuerySchema.extend({
  subjectRecordId: rowIdTextSchema,
  crfId: rowIdTextSchema,
  crfDataRecordId: rowIdTextSchema.optional(),
});
export const labRangeImportQuerySchema = studyIdQuerySchema.extend({
  dryRun: z.enum(['true', 'false']).default('true'),
});

export const labRangeSchema = z.object({
  id: z.number(),
  siteId: z.number(),
  siteName: z.string(),
  analyte: z.string(),
  analyteName: z.string().nullable(),
  unit: z.string().nullable(),
  sex: z.union([z.literal(1), z.literal(2)]).nullable(),
  ageMin: z.number().nullable(),
  ageMax: z.number().nullable(),
  lower: z.number().nullable(),
  upper: z.number().nullable(),
  effectiveFrom: z.string(),
});
export type LabRange = z.infer<typeof labRangeSchema>;

export const labRangeListSchema = z.object({
  list: z.array(labRangeSchema),
  /** The sites the caller may load ranges for (their own, or every department with 查看全部中心数据). */
  sites: z.array(z.object({ deptId: z.number(), deptName: z.string() })),
});

/** A row of an import file that is not imported, and why: the row number as the spreadsheet shows it. */
export const labRangeRefusalSchema = z.object({ row: z.number(), reason: z.string() });
export type LabRangeRefusal = z.infer<typeof labRangeRefusalSchema>;

export const labRangeImportResultSchema = z.object({
  /** Rows that can be imported (dryRun) or were (not dryRun). */
  accepted: z.array(labRangeSchema.omit({ id: true })),
  refused: z.array(labRangeRefusalSchema),
  imported: z.number(),
});
export type LabRangeImportResult = z.infer<typeof labRangeImportResultSchema>;

const SEX_WORDS: Readonly<Record<string, 1 | 2 | null>> = {
  '': null,
  不限: null,
  通用: null,
  全部: null,
  男女: null,
  男: 1,
  '1': 1,
  m: 1,
  male: 1,
  女: 2,
  '2': 2,
  f: 2,
  female: 2,
};

const cellNumber = (text: string): number | null | undefined => {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
};

/** A spreadsheet date cell as yyyy-MM-dd: text (2024-01-01, 2024/1/1, 2024.1.1) or an Excel date. */
function cellDate(cell: unknown): string | null {
  if (cell instanceof Date && !Number.isNaN(cell.getTime())) return cell.toISOString().slice(0, 10);
  const m = /^(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?$/.exec(String(cell ?? '').trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${m[1]}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * The rows of an import file as ranges, or the rows refused and why: never a row dropped unseen. `rows` are the data
 * rows under the header, by column name, with their row number as the sheet shows it; `siteOf` finds a site by its
 * name or id and says whether the caller may load it.
 */
export function labRangesOfRows(
  rows: ReadonlyArray<{ row: number; cells: Readonly<Record<string, unknown>> }>,
  siteOf: (text: string) => { deptId: number; deptName: string } | 'unknown' | 'outside',
): { accepted: Array<Omit<LabRange, 'id'>>; refused: LabRangeRefusal[] } {
  const accepted: Array<Omit<LabRange, 'id'>> = [];
  const refused: LabRangeRefusal[] = [];
  for (const { row, cells } of rows) {
    const text = (col: (typeof LAB_RANGE_COLUMNS)[number]) => {
      const v = cells[col];
      return v instanceof Date ? v.toISOString().slice(0, 10) : String(v ?? '').trim();
    };
    if (LAB_RANGE_COLUMNS.every((c) => text(c) === '')) continue;
    const reasons: string[] = [];
    const site = siteOf(text('分中心'));
    if (site === 'unknown') reasons.push(`分中心“${text('分中心')}”不存在`);
    if (site === 'outside') reasons.push(LAB_RANGE_MSG.otherSite);
    const analyte = text('项目代码');
    if (!analyte) reasons.push('项目代码未填写');
    if (analyte.length > 40) reasons.push('项目代码过长');
    const sexWord = text('性别').toLowerCase();
    const sex = Object.hasOwn(SEX_WORDS, sexWord) ? SEX_WORDS[sexWord]! : undefined;
    if (sex === undefined) reasons.push(`性别“${text('性别')}”无法识别（填写 男、女 或留空）`);
    const numbers = (['年龄下限', '年龄上限', '下限', '上限'] as const).map((col) => {
      const n = cellNumber(text(col));
      if (n === undefined) reasons.push(`${col}“${text(col)}”不是数字`);
      return n ?? null;
    });
    const [ageMin, ageMax, lower, upper] = numbers as [number | null, number | null, number | null, number | null];
    if ((ageMin !== null && ageMin < 0) || (ageMax !== null && ageMax < 0)) reasons.push('年龄不能为负数');
    const effectiveFrom = cellDate(cells['生效日期']);
    if (!effectiveFrom) reasons.push(`生效日期“${text('生效日期')}”不是有效日期（yyyy-MM-dd）`);
    if (reasons.length === 0) reasons.push(...labRangeIssues({ lower, upper, ageMin, ageMax }));
    if (reasons.length > 0 || typeof site === 'string') {
      refused.push({ row, reason: reasons.join('；') });
      continue;
    }
    accepted.push({
      siteId: site.deptId,
      siteName: site.deptName,
      analyte,
      analyteName: text('项目名称') || null,
      unit: text('单位') || null,
      sex: sex ?? null,
      ageMin,
      ageMax,
      lower,
      upper,
      effectiveFrom: effectiveFrom!,
    });
  }
  return { accepted, refused };
}
