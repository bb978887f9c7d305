import { describe, expect, it } from 'vitest';
import type { CrfNode, RecognisedFill } from '@ecrf/core';
import type { RecognitionOutcome } from './recognise-flow';
import { chosenOutcome, cropOf, initialSelection, reviewRows, toggled } from './review-fills';

const CROP = 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDA==';

const node = (name: string, title: string, type: string, option: Record<string, unknown> = {}) =>
  ({ id: name, name, title, type, option, children: [] }) as unknown as CrfNode;

const scope: CrfNode[] = [
  node('wbc', '白细胞计数', 'real'),
  node('hgb', '血红蛋白', 'int'),
  {
    ...node('urine', '尿常规', 'section'),
    children: [node('pro', '尿蛋白', 'radio', { optionsValue: '0,1,2', optionsText: '阴性,弱阳性,阳性' })],
  } as CrfNode,
  node('plt', '血小板计数', 'int'),
];

/** A fill as the mapping answers it, with the plausibility gate's verdict and the entry's crop. */
const fill = (
  itemName: string,
  itemTitle: string,
  value: string,
  extra: { verdict?: 'fill' | 'offer'; reasons?: string[]; crop?: string; printed?: string; unit?: string } = {},
) =>
  ({
    itemName,
    itemTitle,
    value,
    matchedBy: 'name',
    entry: {
      name: itemTitle,
      code: '',
      value: extra.printed ?? value,
      unit: extra.unit ?? '',
      referenceRange: '',
      flag: '',
      ...(extra.crop !== undefined ? { crop: extra.crop } : {}),
    },
    ...(extra.verdict ? { verdict: extra.verdict } : {}),
    ...(extra.reasons ? { reasons: extra.reasons } : {}),
  }) as unknown as RecognisedFill;

const filled = [
  fill('wbc', '白细胞计数', '6.52', { verdict: 'fill', crop: CROP, unit: '10^9/L' }),
  fill('hgb', '血红蛋白', '980', { verdict: 'offer', reasons: ['超出常见范围'], crop: CROP, unit: 'g/L' }),
  fill('pro', '尿蛋白', '1', { verdict: 'fill', printed: '弱阳性', crop: 'javascript:alert(1)' }),
  // An answer from before the gate: no verdict, no crop.
  fill('plt', '血小板计数', '210'),
];

const outcome: RecognitionOutcome = {
  values: { wbc: '6.52', hgb: '980', pro: '1', plt: '210' },
  filled,
  unmatched: ['嗜碱性粒细胞'],
  fileKey: 'f'.repeat(32),
  recognitionId: 7,
};

describe('the review step of a recognition', () => {
  it('RECOG-01: shows each proposed value with its crop; values the gate lets fill are checked, doubtful ones offered unchecked with their reasons', () => {
    const rows = reviewRows(filled, scope);
    expect(rows).toEqual([
      {
        itemName: 'wbc',
        itemTitle: '白细胞计数',
        shown: '6.52',
        unit: '10^9/L',
        crop: CROP,
        verdict: 'fill',
        reasons: [],
      },
      {
        itemName: 'hgb',
        itemTitle: '血红蛋白',
        shown: '980',
        unit: 'g/L',
        crop: CROP,
        verdict: 'offer',
        reasons: ['超出常见范围'],
      },
      // A choice is shown by its option text; a crop that is not an image data URL is not shown.
      { itemName: 'pro', itemTitle: '尿蛋白', shown: '弱阳性', unit: '', crop: null, verdict: 'fill', reasons: [] },
      { itemName: 'plt', itemTitle: '血小板计数', shown: '210', unit: '', crop: null, verdict: 'fill', reasons: [] },
    ]);
    expect([...initialSelection(rows)]).toEqual(['wbc', 'pro', 'plt']);
  });

  it('RECOG-01: fills the checked values only; the nurse may tick an offered one and untick another', () => {
    const rows = reviewRows(filled, scope);
    let selected = initialSelection(rows);
    selected = toggled(selected, 'hgb', true);
    selected = toggled(selected, 'plt', false);
    const chosen = chosenOutcome(outcome, selected);
    expect(chosen.values).toEqual({ wbc: '6.52', hgb: '980', pro: '1' });
    expect(chosen.filled.map((f) => f.itemName)).toEqual(['wbc', 'hgb', 'pro']);
    expect(chosen).toMatchObject({ recognitionId: 7, fileKey: 'f'.repeat(32), unmatched: ['嗜碱性粒细胞'] });
    // Left by 重新识别 or 取消: nothing is filled, the recognition itself is still reported (its source image).
    expect(chosenOutcome(outcome, new Set())).toMatchObject({ values: {}, filled: [], recognitionId: 7 });
  });

  it('shows a crop only when it is an image data URL', () => {
    expect(cropOf(CROP)).toBe(CROP);
    expect(cropOf('data:image/png;base64,iVBORw0KGgo=')).not.toBeNull();
    expect(cropOf('https://example.com/x.jpg')).toBeNull();
    expect(cropOf('data:text/html;base64,PHNjcmlwdD4=')).toBeNull();
    expect(cropOf(undefined)).toBeNull();
    expect(cropOf(42)).toBeNull();
  });
});
