import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { locateUrl, toDoubtFilter } from './doubt-filters';

describe('质疑列表 filters', () => {
  it('QRY-22: the filter bar becomes the query parameters of GET /api/business/doubts', () => {
    expect(
      toDoubtFilter({
        identificationCode: ' LSS-0001 ',
        optionType: 2,
        doubtType: 0,
        userName: ' 王 ',
        range: [dayjs('2026-03-01T10:00:00'), dayjs('2026-03-31T09:00:00')],
      }),
    ).toEqual({
      identificationCode: 'LSS-0001',
      optionType: 2,
      doubtType: 0,
      userName: '王',
      beginDate: '2026-03-01',
      endDate: '2026-03-31',
    });
  });

  it('QRY-04/QRY-05: 待回复 (0) and 系统 (0) are real filters, not blanks; empty fields are left out', () => {
    expect(toDoubtFilter({ optionType: 0, doubtType: 0 })).toEqual({ optionType: 0, doubtType: 0 });
    expect(toDoubtFilter({ identificationCode: '  ', userName: '', range: null })).toEqual({});
    expect(toDoubtFilter({ range: [dayjs('2026-03-01'), null] })).toEqual({ beginDate: '2026-03-01' });
  });

  it('定位 opens the casebook on the query’s form and record', () => {
    expect(locateUrl({ subjectRecordId: 7, crfId: 3, crfDataRecordId: 41 })).toBe('/crf/7?crfId=3&crfDataRecordId=41');
  });
});
