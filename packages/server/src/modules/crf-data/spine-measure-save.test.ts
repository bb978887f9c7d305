import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
let imagingCrfId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-spine-measure-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
  const crfs = (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data as {
    id: number;
    title: string;
  }[];
  imagingCrfId = crfs.find((c) => c.title === '影像学检查')!.id;
});
afterAll(() => t.close());

const seg = (x1: number, y1: number, x2: number, y2: number) => ({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 } });

describe('spine manual measurement on save', () => {
  it('SPM-02, SPM-07: the server checks the value by the core schema: a third TK line or a broken value is refused, the data is stored and read back', async () => {
    const subject = (
      await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '赵六',
        gender: 1,
        birth: '1960-01-05',
        diseaseCode: 'LSS',
      })
    ).body.data as { subjectRecordId: number };
    const save = (value: unknown) =>
      t.call(admin, 'PUT', '/api/v3/business/crf', {
        subjectRecordId: subject.subjectRecordId,
        crfId: imagingCrfId,
        version: 0,
        values: { spine_manual: value },
      });

    const tk = { lines: [seg(100, 200, 300, 200), seg(100, 500, 300, 384)], angle: 30, diagnosis: '胸椎后凸正常' };
    const third = await save(JSON.stringify({ imgUrl: 'abc', TK: { ...tk, lines: [...tk.lines, seg(1, 1, 9, 9)] } }));
    expect(third.status).toBe(400);
    expect(third.body.data.errors[0].itemName).toBe('spine_manual');
    expect(JSON.stringify(third.body)).toContain('线段条数已达上限');

    const broken = await save('{"imgUrl": 1}');
    expect(broken.status).toBe(400);
    expect(JSON.stringify(broken.body)).toContain('脊柱测量数据格式有误');

    const ok = await save(JSON.stringify({ imgUrl: 'abc', TK: tk }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${imagingCrfId}`))
      .body.data as { crfDataRecord: { values: Record<string, unknown> } };
    const stored = JSON.parse(detail.crfDataRecord.values.spine_manual as string);
    expect(stored.TK.angle).toBe(30);
    expect(stored.TK.lines).toHaveLength(2);
  });

  it("SPM-02: the film's facing (which gives the sagittal signs) is stored with the measurement; an unknown facing is refused", async () => {
    const subject = (
      await t.call(admin, 'POST', '/api/business/subject', {
        studyId,
        subjectName: '孙八',
        gender: 0,
        birth: '1962-07-11',
        diseaseCode: 'LSS',
      })
    ).body.data as { subjectRecordId: number };
    const save = (value: unknown) =>
      t.call(admin, 'PUT', '/api/v3/business/crf', {
        subjectRecordId: subject.subjectRecordId,
        crfId: imagingCrfId,
        version: 0,
        values: { spine_manual: JSON.stringify(value) },
      });
    // A kyphotic neck on a film facing left: C2 and C7 endplates mirrored, CL −25° (颈椎前凸中度减小).
    const cl = { lines: [seg(400, 200, 300, 226), seg(400, 500, 300, 482)], angle: -25, diagnosis: '颈椎前凸中度减小' };
    const wrong = await save({ imgUrl: 'abc', facing: 'up', CL: cl });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain('脊柱测量数据格式有误');
    const ok = await save({ imgUrl: 'abc', facing: 'left', CL: cl });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const detail = (await t.call(admin, 'GET', `/api/v3/business/crf/${subject.subjectRecordId}?crfId=${imagingCrfId}`))
      .body.data as { crfDataRecord: { values: Record<string, unknown> }; spineBandSet: string };
    const stored = JSON.parse(detail.crfDataRecord.values.spine_manual as string);
    expect(stored).toMatchObject({ facing: 'left', CL: { angle: -25, diagnosis: '颈椎前凸中度减小' } });
    expect(detail.spineBandSet).toBe('spec');
  });
});
