import path from 'node:path';
import { nodesByName, TEST_EXPORT_NOTICE, testExportLabel } from '@ecrf/core';
import {
  odmClinicalDataOpen,
  odmMetadata,
  odmRecordGroups,
  odmSubjectData,
  ODM_CLINICAL_DATA_CLOSE,
  type OdmEventData,
  type OdmFormData,
  withOdmMissingMarks,
} from '@ecrf/core/interop';
import type { PlanForm } from './export-source.js';
import {
  patientPass,
  patientsWithRecords,
  TextSink,
  type WriteContext,
  type WrittenFile,
} from './export-writer-common.js';

// CDISC ODM 1.3.2: the forms' metadata (core's exporter, with the stages as study events), then ClinicalData one
// SubjectData per patient, each record's values as core writes them (odmRecordGroups: codes, ISO 8601 dates
// shifted when asked, a multiple choice one 1/0 per option, the addition text its own item, uploads by name).
// A test export says 测试数据 in its StudyDescription and in a comment after the XML declaration (ODM has no
// test flag; a first line of text would make the file not XML).

const UNSCHEDULED_EVENT = 'SE.UNSCHEDULED';

export async function writeOdm(ctx: WriteContext): Promise<WrittenFile> {
  const { plan } = ctx;
  const eventOid = (form: PlanForm) => (form.stage ? `SE.${form.stage.stageId}` : UNSCHEDULED_EVENT);
  const events = plan.stages
    .map((s) => ({
      oid: `SE.${s.stageId}`,
      name: s.name,
      formIndexes: plan.forms.flatMap((f, i) => (f.stage?.stageId === s.stageId ? [i] : [])),
    }))
    .filter((e) => e.formIndexes.length > 0);
  const unscheduled = plan.forms.flatMap((f, i) => (f.stage ? [] : [i]));
  if (unscheduled.length > 0) events.push({ oid: UNSCHEDULED_EVENT, name: '未分阶段', formIndexes: unscheduled });
  const meta = odmMetadata(
    plan.forms.map((f) => f.definition),
    {
      studyOid: `S.${plan.studyId}`,
      studyName: ctx.studyName,
      studyDescription: ctx.test ? testExportLabel(ctx.studyName) : undefined,
      now: ctx.now,
      events,
      repeatingForms: new Set(plan.forms.flatMap((f, i) => (f.repeating ? [i] : []))),
      missingCodes: plan.missingCodes,
    },
  );
  const file = path.join(ctx.dir, 'export.xml');
  const sink = new TextSink(file);
  // The head's first line is the XML declaration: nothing, not even a comment, may come before it.
  const head = ctx.test ? meta.head.replace('\n', `\n<!-- ${TEST_EXPORT_NOTICE} -->\n`) : meta.head;
  await sink.write(`${head}\n${odmClinicalDataOpen(meta.studyOid, meta.metaDataVersionOid)}\n`);
  const formIndex = new Map(plan.forms.map((f, i) => [f.crfId, i]));
  const nodes = new Map(plan.forms.map((f) => [f.crfId, nodesByName(f.definition)]));
  let rows = 0;
  for await (const batch of patientPass(ctx)) {
    for (const { patient, records } of patientsWithRecords(batch)) {
      const byEvent = new Map<string, OdmFormData[]>();
      for (const record of records) {
        const i = formIndex.get(record.crfId)!;
        const form = plan.forms[i]!;
        // 缺失原因: a marked item as an ItemData with a Flag of its code (odm-missing.ts).
        const groups = withOdmMissingMarks(
          meta.layouts[i]!,
          odmRecordGroups(meta.layouts[i]!, nodes.get(form.crfId)!, record.values, {
            shiftDays: patient.shiftDays,
            fileNames: record.fileNames,
          }),
          record.values,
        );
        rows += groups.reduce((n, g) => n + g.items.length, 0);
        const formData: OdmFormData = {
          formOid: meta.layouts[i]!.formOid,
          repeatKey: form.repeating ? record.instance : undefined,
          groups,
        };
        const key = eventOid(form);
        const list = byEvent.get(key) ?? [];
        list.push(formData);
        byEvent.set(key, list);
      }
      const eventData: OdmEventData[] = events
        .filter((e) => byEvent.has(e.oid))
        .map((e) => ({ eventOid: e.oid, forms: byEvent.get(e.oid)! }));
      await sink.write(odmSubjectData(patient.code, eventData));
    }
  }
  await sink.write(ODM_CLINICAL_DATA_CLOSE);
  await sink.close();
  return { path: file, contentType: 'application/xml; charset=utf-8', rows };
}
