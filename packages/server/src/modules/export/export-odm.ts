import path from 'node:path';
import { isEmptyValue, nodesByName, readChoiceList, readRows, shiftDate, type CrfNode } from '@ecrf/core';
import {
  odmClinicalDataOpen,
  odmMetadata,
  odmSubjectData,
  ODM_CLINICAL_DATA_CLOSE,
  type OdmEventData,
  type OdmFormData,
  type OdmItemGroupData,
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
// SubjectData per patient. Values as stored: codes, ISO dates (shifted when asked), a multiple choice as codes
// joined by commas.

const UNSCHEDULED_EVENT = 'SE.UNSCHEDULED';

function odmValue(node: CrfNode | undefined, value: unknown, shift: number | null): string | null {
  if (isEmptyValue(value)) return null;
  if (node && (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate') && shift !== null) {
    return shiftDate(String(value), shift);
  }
  if (node && (node.type === 'checkbox' || node.type === 'multiSelect')) return readChoiceList(value).join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

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
      now: ctx.now,
      events,
      repeatingForms: new Set(plan.forms.flatMap((f, i) => (f.repeating ? [i] : []))),
    },
  );
  const file = path.join(ctx.dir, 'export.xml');
  const sink = new TextSink(file);
  await sink.write(`${meta.head}\n${odmClinicalDataOpen(meta.studyOid, meta.metaDataVersionOid)}\n`);
  const formIndex = new Map(plan.forms.map((f, i) => [f.crfId, i]));
  const nodes = new Map(plan.forms.map((f) => [f.crfId, nodesByName(f.definition)]));
  let rows = 0;
  for await (const batch of patientPass(ctx)) {
    for (const { patient, records } of patientsWithRecords(batch)) {
      const byEvent = new Map<string, OdmFormData[]>();
      for (const record of records) {
        const i = formIndex.get(record.crfId)!;
        const form = plan.forms[i]!;
        const layout = meta.layouts[i]!;
        const formNodes = nodes.get(form.crfId)!;
        const groups = new Map<string, OdmItemGroupData & { items: Array<{ itemOid: string; value: string }> }>();
        for (const [name, place] of layout.items) {
          const value = odmValue(formNodes.get(name), record.values[name], patient.shiftDays);
          if (value === null) continue;
          let group = groups.get(place.groupOid);
          if (!group) groups.set(place.groupOid, (group = { groupOid: place.groupOid, items: [] }));
          group.items.push({ itemOid: place.itemOid, value });
          rows += 1;
        }
        const rowGroups: OdmItemGroupData[] = [];
        for (const [name, rowGroup] of layout.rowGroups) {
          const rowNode = formNodes.get(name);
          readRows(record.values[name]).forEach((row, r) => {
            const items: Array<{ itemOid: string; value: string }> = [];
            for (const [child, itemOid] of rowGroup.items) {
              const node = rowNode?.children.find((c) => c.name === child);
              const value = odmValue(node, row[child], patient.shiftDays);
              if (value === null) continue;
              items.push({ itemOid, value });
              rows += 1;
            }
            if (items.length > 0) rowGroups.push({ groupOid: rowGroup.groupOid, repeatKey: r + 1, items });
          });
        }
        const formData: OdmFormData = {
          formOid: layout.formOid,
          repeatKey: form.repeating ? record.instance : undefined,
          groups: [...groups.values(), ...rowGroups],
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
