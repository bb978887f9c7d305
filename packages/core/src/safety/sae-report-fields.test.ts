import { describe, expect, it } from 'vitest';
import { ciomsReportFields, nmpaReportFields, type SaeReportSource } from './sae-report-fields.js';

const source = (over: Partial<SaeReportSource> = {}): SaeReportSource => ({
  values: {
    ae_term: '重症肺炎',
    ae_start: '2026-11-20',
    ae_grade: '3',
    ae_serious: '1',
    ae_criteria: ['hosp', 'life'],
    ae_aware: '2026-11-22 14:00',
    ae_causality: 'possible',
    ae_action: 'interrupted',
    ae_outcome: 'recovering',
  },
  kind: 'initial',
  version: 1,
  submittedAt: null,
  timeZone: 'Asia/Shanghai',
  studyName: '示例研究',
  studyCode: 'DEMO',
  siteName: '甲中心',
  identificationCode: 'LSS-001',
  maskedName: '王*',
  gender: 1,
  birth: '1960-**-**',
  age: 66,
  ...over,
});

describe('the SAE report forms (issue 37)', () => {
  it('NMPA 严重不良事件报告表: the boxes say what was recorded, pairs of the form print as one box', () => {
    const f = nmpaReportFields(source());
    expect(f.reportType).toBe('☑首次报告  ☐随访报告  ☐总结报告');
    expect(f.seriousness).toBe('☐死亡  ☑导致住院/延长住院时间  ☐伤残/功能障碍  ☐导致先天畸形  ☑危及生命  ☐其它');
    expect(f.gender).toBe('☑男  ☐女');
    expect(f.action).toContain('☑暂停用药');
    expect(f.outcome).toContain('☑好转');
    expect(f.causality).toContain('☑可能有关');
    expect(f.initials).toBe('王*');
    expect(f.birth).toBe('1960-**-**');
  });

  it('NMPA: what the platform does not hold is blank, never guessed; the report time is the submission, in the zone', () => {
    const pending = nmpaReportFields(source());
    for (const key of [
      'reportTime',
      'sponsor',
      'drugNameCn',
      'studyCategory',
      'indication',
      'height',
      'weight',
      'comorbidity',
      'deathDate',
      'details',
      'reportingUnit',
      'reporterTitle',
      'reporterSignature',
    ]) {
      expect(pending[key], key).toBe('');
    }
    expect(pending.reportedDomestic).toBe('☐有  ☐无  ☐不详');
    const sent = nmpaReportFields(source({ submittedAt: '2026-11-22T08:30:00Z', kind: 'followup', version: 2 }));
    expect(sent.reportTime).toBe('2026-11-22 16:30');
    expect(sent.reportType).toBe('☐首次报告  ☑随访报告  ☐总结报告');
  });

  it('CIOMS: English boxes, values as stored (Chinese terms stay), the drug fields blank', () => {
    const f = ciomsReportFields(source({ gender: 2 }));
    expect(f.sex).toBe('F');
    expect(f.seriousness.split('\n')).toEqual([
      '☐ Patient died',
      '☑ Involved or prolonged inpatient hospitalisation',
      '☐ Involved persistence or significant disability or incapacity',
      '☑ Life threatening',
      '☐ Congenital anomaly / birth defect',
      '☐ Other medically important condition',
    ]);
    expect(f.description.split('\n')[0]).toBe('重症肺炎');
    expect(f.description).toContain('Investigator causality: 可能有关');
    expect(f.reportType).toBe('☑ Initial  ☐ Follow-up');
    expect([f.country, f.suspectDrugs, f.dailyDose, f.route, f.indication, f.concomitantDrugs, f.history]).toEqual(
      Array(7).fill(''),
    );
  });

  it('an empty record prints empty boxes and no stray labels', () => {
    const f = ciomsReportFields(source({ values: {}, gender: null, age: null, birth: null }));
    expect(f.description).toBe('');
    expect(f.sex).toBe('');
    expect(f.age).toBe('');
    expect(nmpaReportFields(source({ values: {} })).seriousness).not.toContain('☑');
  });
});
