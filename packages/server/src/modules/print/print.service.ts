import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq, isNull } from 'drizzle-orm';
import {
  choicesOf,
  isChoiceType,
  isRowType,
  isValueType,
  readChoiceList,
  valueText,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfDataRecords, crfVersions, crfs, printTemplates } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { canViewCrf, type StudyAccess } from '../../shared/study-access.js';
import { fileKeysOf, fileNamesOf } from '../audit/audit-text.service.js';
import { nodesOf } from '../study/crf-definitions.js';
import { formIdentifiers, valuesFor } from '../crf-data/identifier-values.js';
import { getSubjectByRecord, listSignatures } from '../subjects/subject.service.js';
import { appendSignatures, signatureTags } from './print-signatures.js';

const run = promisify(execFile);

export async function hasTemplate(ctx: AppContext, crfId: number) {
  const [row] = await ctx.db
    .select({ enabled: printTemplates.enabled })
    .from(printTemplates)
    .where(eq(printTemplates.crfId, crfId));
  return Boolean(row?.enabled);
}

export async function templateInfo(ctx: AppContext, crfId: number) {
  const [row] = await ctx.db
    .select({ crfId: printTemplates.crfId, fileName: printTemplates.fileName, updateTime: printTemplates.updatedAt })
    .from(printTemplates)
    .where(eq(printTemplates.crfId, crfId));
  return row ?? null;
}

/** docxtemplater and pizzip load on the first template or print, not at the server's start. */
export async function wordLibraries() {
  const [{ default: Docxtemplater }, { default: PizZip }] = await Promise.all([
    import('docxtemplater'),
    import('pizzip'),
  ]);
  return { Docxtemplater, PizZip };
}

/** Refuses a file that is not a Word document whose tags docxtemplater can parse. */
async function checkTemplate(data: Buffer) {
  const { Docxtemplater, PizZip } = await wordLibraries();
  try {
    new Docxtemplater(new PizZip(data), { paragraphLoop: true, linebreaks: true });
  } catch {
    throw AppError.badRequest('print.template_invalid', '模板不是有效的Word文档（.docx），或其中的{标签}有误');
  }
}

export async function saveTemplate(ctx: AppContext, studyId: number, crfId: number, fileName: string, data: Buffer) {
  await checkTemplate(data);
  await ctx.db
    .insert(printTemplates)
    .values({ crfId, studyId, fileName, content: data.toString('base64'), updatedAt: ctx.clock() })
    .onConflictDoUpdate({
      target: printTemplates.crfId,
      set: { fileName, content: data.toString('base64'), enabled: true, updatedAt: ctx.clock() },
    });
  return templateInfo(ctx, crfId);
}

export async function deleteTemplate(ctx: AppContext, crfId: number) {
  await ctx.db.delete(printTemplates).where(eq(printTemplates.crfId, crfId));
}

const UPLOAD_TYPES = new Set<string>(['imageUpload', 'videoUpload', 'fileUpload']);

/** What a person reads: choice labels instead of codes, uploads by their original names, rows as loops. */
function displayValue(node: CrfNode, raw: unknown, fileNames: ReadonlyMap<string, string>): unknown {
  if (raw === null || raw === undefined) return '';
  if (UPLOAD_TYPES.has(node.type)) return valueText(node, raw, {}, { fileNames });
  if (isChoiceType(node.type)) {
    const choices = choicesOf(node.option ?? {});
    return readChoiceList(raw)
      .map((code) => choices.find((c) => c.value === code)?.text ?? code)
      .join('、');
  }
  if (isRowType(node.type) && Array.isArray(raw)) {
    return raw.map((row: Record<string, unknown>) =>
      Object.fromEntries(
        (node.children ?? []).map((child) => [child.name, displayValue(child, row?.[child.name], fileNames)]),
      ),
    );
  }
  if (typeof raw === 'object') return JSON.stringify(raw);
  return String(raw);
}

export function templateData(
  definition: CrfDefinition,
  values: Record<string, unknown>,
  fileNames: ReadonlyMap<string, string> = new Map(),
) {
  const data: Record<string, unknown> = {};
  const walk = (nodes: CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type)) data[node.name] = displayValue(node, values[node.name], fileNames);
      if (!isRowType(node.type)) walk(node.children ?? []);
    }
  };
  walk(definition.children);
  return data;
}

/**
 * Fills the CRF's Word template with one record's values and the casebook's signatures; PDF when LibreOffice is
 * installed (the PDF is the filled Word document converted, so it carries the same signature lines).
 */
export async function printWord(
  ctx: AppContext,
  access: StudyAccess,
  input: { subjectRecordId: number; crfId: number; crfDataRecordId?: number; format?: 'docx' | 'pdf' },
) {
  // The printed form shows the record's values: only for whoever may view its CRF.
  if (!canViewCrf(access, input.crfId)) throw AppError.forbidden();
  const [template] = await ctx.db.select().from(printTemplates).where(eq(printTemplates.crfId, input.crfId));
  if (!template) throw AppError.notFound('print.no_template', '该表单没有打印模板');
  const [record] = await ctx.db
    .select()
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.subjectRecordId, input.subjectRecordId),
        eq(crfDataRecords.crfId, input.crfId),
        input.crfDataRecordId ? eq(crfDataRecords.id, input.crfDataRecordId) : undefined,
        isNull(crfDataRecords.deletedAt),
      ),
    );
  const [crf] = await ctx.db.select().from(crfs).where(eq(crfs.id, input.crfId));
  const version = record?.crfVersion ?? crf!.currentVersion;
  const [def] = await ctx.db
    .select({ definition: crfVersions.definition })
    .from(crfVersions)
    .where(and(eq(crfVersions.crfId, input.crfId), eq(crfVersions.version, version)));
  // The printed form carries the patient's name as the caller may see it (masked without the identifiers permission).
  const subject = await getSubjectByRecord(ctx, input.subjectRecordId, access);
  const definition = def!.definition as CrfDefinition;
  // Identifier items print masked without 查看患者身份信息, as the form page shows them.
  const ids = await formIdentifiers(ctx.db, input.crfId, [version], crf!.currentVersion);
  const values = valuesFor(access, ids, record?.values ?? {});
  const nodes = nodesOf(definition);
  const fileNames = await fileNamesOf(
    ctx.db,
    access.studyId,
    Object.entries(values).flatMap(([name, value]) => fileKeysOf(nodes.get(name), value)),
  );
  const signed = await listSignatures(ctx, input.subjectRecordId);
  const { Docxtemplater, PizZip } = await wordLibraries();
  const doc = new Docxtemplater(new PizZip(Buffer.from(template.content, 'base64')), {
    paragraphLoop: true,
    linebreaks: true,
    nullGetter: () => '',
  });
  doc.render({
    subjectName: subject.subjectName,
    identificationCode: subject.identificationCode,
    gender: subject.gender === 1 ? '男' : '女',
    age: subject.age ?? '',
    crfTitle: crf!.title,
    ...signatureTags(signed, access.timeZone),
    ...templateData(definition, values, fileNames),
  });
  // Part 11 §11.50: the casebook's signatures (valid and voided) print on every form, in the study's zone.
  appendSignatures(doc.getZip(), signed, access.timeZone);
  const docx = doc.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  const base = `${subject.identificationCode}-${crf!.title}`;
  if (input.format !== 'pdf') {
    return {
      fileName: `${base}.docx`,
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      data: docx,
    };
  }
  return { fileName: `${base}.pdf`, type: 'application/pdf', data: await toPdf(docx) };
}

export async function toPdf(docx: Buffer): Promise<Buffer> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'edc-print-'));
  try {
    const source = path.join(dir, 'form.docx');
    await fs.promises.writeFile(source, docx);
    await run('soffice', ['--headless', '--convert-to', 'pdf', '--outdir', dir, source], { timeout: 60_000 });
    return await fs.promises.readFile(path.join(dir, 'form.pdf'));
  } catch {
    throw AppError.badRequest('print.pdf_unavailable', '服务器未安装 LibreOffice，无法生成PDF，请下载Word文档打印');
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
