import { describe, expect, it } from 'vitest';
import { cumulativeSeries, enrolmentSeries } from './enrolment-series';

describe('enrolment series', () => {
  it('shows the last twelve months up to this one, months without patients as 0', () => {
    const series = enrolmentSeries(
      [
        { month: '2025-11', count: 3 },
        { month: '2026-02', count: 1 },
      ],
      '2026-03',
    );
    expect(series).toHaveLength(12);
    expect(series[0]).toEqual({ month: '2025-04', count: 0 });
    expect(series.at(-1)).toEqual({ month: '2026-03', count: 0 });
    expect(series.find((e) => e.month === '2025-11')?.count).toBe(3);
    expect(series.find((e) => e.month === '2026-02')?.count).toBe(1);
    expect(series.find((e) => e.month === '2025-12')?.count).toBe(0);
  });

  it('starts earlier rather than drop older enrolment', () => {
    const series = enrolmentSeries([{ month: '2024-01', count: 2 }], '2025-06');
    expect(series[0]).toEqual({ month: '2024-01', count: 2 });
    expect(series.at(-1)?.month).toBe('2025-06');
    expect(series).toHaveLength(18);
  });
});

describe('cumulativeSeries', () => {
  it('carries the running total through months without enrolment', () => {
    expect(
      cumulativeSeries(
        [
          { month: '2026-03', total: 5 },
          { month: '2026-01', total: 2 },
        ],
        ['2026-01', '2026-02', '2026-03', '2026-04'],
      ),
    ).toEqual([
      { month: '2026-01', total: 2 },
      { month: '2026-02', total: 2 },
      { month: '2026-03', total: 5 },
      { month: '2026-04', total: 5 },
    ]);
    expect(cumulativeSeries([], ['2026-01'])).toEqual([{ month: '2026-01', total: 0 }]);
  });
});
