import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { renderWithProviders } from '../../../test/render';
import { RecognitionReview } from './recognition-review';
import { initialSelection, toggled, type ReviewRow } from './review-fills';

afterEach(cleanup);

const CROP = 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDA==';

const rows: ReviewRow[] = [
  { itemName: 'wbc', itemTitle: '白细胞计数', shown: '6.52', unit: '10^9/L', crop: CROP, verdict: 'fill', reasons: [] },
  {
    itemName: 'hgb',
    itemTitle: '血红蛋白',
    shown: '980',
    unit: 'g/L',
    crop: CROP,
    verdict: 'offer',
    reasons: ['超出常见范围'],
  },
  { itemName: 'plt', itemTitle: '血小板计数', shown: '210', unit: '', crop: null, verdict: 'fill', reasons: [] },
];

function Review() {
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => initialSelection(rows));
  return (
    <>
      <RecognitionReview
        rows={rows}
        selected={selected}
        onToggle={(name, checked) => setSelected((s) => toggled(s, name, checked))}
        unmatched={['嗜碱性粒细胞']}
      />
      <output data-testid="selected">{[...selected].join(',')}</output>
    </>
  );
}

const box = (title: string) => screen.getByRole('checkbox', { name: `填入 ${title}` }) as HTMLInputElement;

describe('the review table', () => {
  it('RECOG-01: shows each value beside its crop; a doubtful one unchecked with 请核对 and its reason', async () => {
    renderWithProviders(<Review />);
    expect(screen.getByRole('img', { name: '白细胞计数 报告原图' }).getAttribute('src')).toBe(CROP);
    expect(screen.getByRole('img', { name: '血红蛋白 报告原图' })).not.toBeNull();
    expect(screen.getByText('无原图')).not.toBeNull();
    expect([box('白细胞计数').checked, box('血红蛋白').checked, box('血小板计数').checked]).toEqual([
      true,
      false,
      true,
    ]);
    expect(screen.getAllByText('请核对')).toHaveLength(1);
    expect(screen.getByText('超出常见范围')).not.toBeNull();
    expect(screen.getByText('报告中另有 1 项未对应本表单题目：嗜碱性粒细胞')).not.toBeNull();

    await act(async () => {
      fireEvent.click(box('血红蛋白'));
    });
    await act(async () => {
      fireEvent.click(box('血小板计数'));
    });
    expect(screen.getByTestId('selected').textContent).toBe('wbc,hgb');
  });
});
