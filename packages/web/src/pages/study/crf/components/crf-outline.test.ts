import { describe, expect, it } from 'vitest';
import type { CrfNode } from '@ecrf/core';
import { crfOutline } from './crf-outline';

describe('CRF outline', () => {
  it('names every item type as the Excel workbook does (one table in @ecrf/core), the spine items included', () => {
    const children = [
      {
        type: 'section',
        name: 'spine',
        title: '脊柱',
        children: [
          { type: 'radio', name: 'side', title: '侧别' },
          { type: 'spineCobb', name: 'cobb', title: 'Cobb 角' },
        ],
      },
    ] as unknown as CrfNode[];
    const [section] = crfOutline({ children });
    expect(section).toMatchObject({ key: '0', typeLabel: '分区', title: '脊柱' });
    expect(section!.children.map((node) => [node.key, node.typeLabel])).toEqual([
      ['0-0', '单选'],
      ['0-1', '脊柱自动测量'],
    ]);
  });
});
