import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import type * as CrfApi from '../../../api/crf.api';
import { renderWithProviders } from '../../../test/render';
import { PatientInfoDialog } from './patient-dialogs';

const api = vi.hoisted(() => ({ patientInfo: vi.fn() }));
vi.mock('../../../api/crf.api', async (importOriginal) => {
  const original = await importOriginal<typeof CrfApi>();
  return { ...original, crfRecordApi: { ...original.crfRecordApi, ...api } };
});

const PATIENT = {
  id: 1,
  studyId: 5,
  subjectRecordId: 7,
  identificationCode: 'LSS-0001',
  subjectName: '张建国',
  gender: 1,
  birth: '1960-03-15',
  age: 66,
  mobile: '13912345678',
  diseaseCode: 'LSS',
  openId: null,
  qrCode: 'f00d',
  state: 0,
  creater: '管理员',
  createTime: '2026-01-02T03:04:05Z',
};

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe('patient info dialog (CRF-04)', () => {
  it('shows the patient as the server holds it, the ID number only when there is one', async () => {
    api.patientInfo.mockResolvedValue({ code: 200, msg: '', data: PATIENT });
    renderWithProviders(<PatientInfoDialog subjectRecordId={7} open onClose={() => undefined} />);
    expect(await screen.findByText('张建国')).toBeTruthy();
    expect(screen.getByText('1960-03-15')).toBeTruthy();
    expect(screen.getByText('13912345678')).toBeTruthy();
    expect(screen.queryByText('身份证号')).toBeNull();
  });

  it('PIPL: masked values (no 查看患者身份信息) are shown as sent, the birth date included', async () => {
    api.patientInfo.mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        ...PATIENT,
        subjectName: '张**',
        birth: '1960-**-**',
        mobile: '139****5678',
        idNumber: '110105********002X',
        identifiersMasked: true,
      },
    });
    renderWithProviders(<PatientInfoDialog subjectRecordId={7} open onClose={() => undefined} />);
    expect(await screen.findByText('张**')).toBeTruthy();
    expect(screen.getByText('1960-**-**')).toBeTruthy();
    expect(screen.getByText('139****5678')).toBeTruthy();
    expect(screen.getByText('身份证号')).toBeTruthy();
    expect(screen.getByText('110105********002X')).toBeTruthy();
  });
});
