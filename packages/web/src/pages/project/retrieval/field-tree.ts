import type { SearchDics } from '../../../api/search.api';
import { RETRIEVAL_TEXT } from '../../../locales/retrieval.zh-CN';

const t = RETRIEVAL_TEXT;

/** The picker's tree: patient fields, then each form with its items and its form state. */
export function fieldTree(dics: SearchDics) {
  return [
    {
      title: t.patientFields,
      value: 'patient',
      selectable: false,
      children: dics.patientFields.map((f) => ({ title: f.title, value: `p:${f.field}` })),
    },
    ...dics.crfs.map((crf) => ({
      title: crf.title,
      value: `crf:${crf.crfId}`,
      selectable: false,
      children: [
        { title: `${t.formStates}（${crf.title}）`, value: `s:${crf.crfId}` },
        // A list group's or table's column is named by its path: 用药记录 › 药物名称.
        ...crf.items.map((item) => ({
          title: item.unit ? `${item.path}（${item.unit}）` : item.path,
          value: `i:${crf.crfId}:${item.name}`,
        })),
      ],
    })),
  ];
}

/** The result columns' tree: the fields, without the form states. */
export function columnTree(dics: SearchDics) {
  return fieldTree(dics).map((node) => ({
    ...node,
    children: node.children.filter((c) => !c.value.startsWith('s:')),
  }));
}

export type FieldTree = ReturnType<typeof fieldTree>;
