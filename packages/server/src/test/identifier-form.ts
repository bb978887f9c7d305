import type { CrfDefinition } from '@ecrf/core';

/** A form with identifier items: a single one (住院号) and a list-group column (家属姓名) beside plain items. */
export const CONTACTS: CrfDefinition = {
  title: '联系信息',
  option: {},
  children: [
    { name: 'hospital_no', title: '住院号', type: 'input', option: { identifier: 1 }, children: [] },
    { name: 'height', title: '身高', type: 'int', option: { units: 'cm' }, children: [] },
    {
      name: 'family',
      title: '家属',
      type: 'listGroup',
      option: {},
      children: [
        { name: 'who', title: '家属姓名', type: 'input', option: { identifier: 1 }, children: [] },
        { name: 'rel', title: '关系', type: 'input', option: {}, children: [] },
      ],
    },
  ],
};
