import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doubtMessages, doubts, users } from '../../db/schema/index.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openDemoStudy } from '../../test/demo.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  Object.assign(crfIds, demo.crfIds);
});
afterAll(() => t.close());

async function member(userName: string, name: string, buttons: string[]) {
  const user = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name,
    deptId: 1,
    roleIds: [1],
  });
  const plain = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `r${userName}`,
    roleKey: `r${userName}`,
    menuIds: [],
  });
  await t.call(admin, 'PUT', '/api/system/user', {
    userId: user.body.data.userId,
    userName,
    name,
    deptId: 1,
    roleIds: [plain.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, user.body.data.userId));
  const crfKeys = Object.values(crfIds).flatMap((id) => [`crf:${id}:view`, `crf:${id}:save`, `crf:${id}:submit`]);
  const role = await t.call(admin, 'POST', '/api/system/studyRole', {
    studyId,
    roleName: name,
    permissions: [...buttons.map((b) => `btn:${b}`), ...crfKeys],
  });
  await t.call(admin, 'POST', '/api/business/study_personnel', {
    studyId,
    userIds: [user.body.data.userId],
    studyRoleId: role.body.data.id,
  });
  return (await t.login(userName, 'Passw0rd')).token;
}

let monitor: string;
let crc: string;
let subjectRecordId: number;
let recordId: number;
const vitals = () => crfIds['生命体征']!;

beforeAll(async () => {
  monitor = await member('13200000001', '监查员', ['study.doubt.open', 'study.doubt.close', 'study.iconBtn.doubt']);
  crc = await member('13200000002', '研究护士', ['study.doubt.reply', 'business.crf.save', 'business.crf.submit']);
  const subject = await t.call(crc, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '质疑测试',
    gender: 0,
    diseaseCode: 'LSS',
  });
  expect(subject.status, JSON.stringify(subject.body)).toBe(403);
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '质疑测试',
    gender: 0,
    diseaseCode: 'LSS',
  });
  subjectRecordId = enrolled.body.data.subjectRecordId;
  const saved = await t.call(crc, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: vitals(),
    version: 0,
    values: { sbp: 130, dbp: 80, hr: 70 },
    submit: true,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  recordId = saved.body.data.crfDataRecordId;
});

describe('user queries', () => {
  it('QRY-02/QRY-03/QRY-04/QRY-05/QRY-15/QRY-16/QRY-17/QRY-18/QRY-19/QRY-21: monitor raises, data entry answers with a corrected value, monitor closes; the form goes 2 → 9 → 2', async () => {
    const state = async () =>
      (await t.call(crc, 'GET', `/api/business/crf/menu/${subjectRecordId}`)).body.data[0].childrens[1].state;
    expect(await state()).toBe(2);
    const opened = await t.call(monitor, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: recordId,
      itemName: 'sbp',
      doubtDescription: '与原始病历不符，请核实',
    });
    expect(opened.body.msg).toBe('开启质疑成功');
    const doubtId = opened.body.data.doubtId;
    expect(await state()).toBe(9);
    const detail = (
      await t.call(crc, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${vitals()}&crfDataRecordId=${recordId}`)
    ).body.data;
    expect(detail.crfDoubts).toEqual([
      { itemName: 'sbp', groupName: null, groupIndex: null, doubtId, optionType: 0, doubtType: 1 },
    ]);
    expect((await t.call(crc, 'GET', `/api/business/doubts/count?studyId=${studyId}`)).body.data.waiting).toBe(1);
    expect(
      (
        await t.call(monitor, 'POST', '/api/business/doubt/open', {
          crfDataRecordId: recordId,
          itemName: 'sbp',
          doubtDescription: '重复',
        })
      ).body.msg,
    ).toBe('该题目已有未关闭的质疑');

    await t.call(crc, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals(),
      crfDataRecordId: recordId,
      version: 1,
      values: { sbp: 135, dbp: 80, hr: 70 },
      reason: '按原始病历更正',
    });
    expect((await t.call(crc, 'PUT', '/api/business/doubt/reply', { doubtId, content: '' })).body.msg).toBe(
      '请输入回复内容',
    );
    expect(
      (await t.call(crc, 'PUT', '/api/business/doubt/reply', { doubtId, content: '已按原始病历更正为135' })).body.msg,
    ).toBe('回复质疑成功');
    expect((await t.call(monitor, 'GET', `/api/business/doubts/count?studyId=${studyId}`)).body.data.waiting).toBe(1);
    expect((await t.call(monitor, 'PUT', '/api/business/doubt/close', { doubtId, content: '' })).body.msg).toBe(
      '请输入关闭原因',
    );
    expect((await t.call(monitor, 'PUT', '/api/business/doubt/close', { doubtId, content: '已核实' })).body.msg).toBe(
      '关闭质疑成功',
    );
    expect(await state()).toBe(2);

    const thread = (await t.call(monitor, 'GET', `/api/business/doubt/${doubtId}`)).body.data;
    expect(thread).toMatchObject({
      doubtId,
      itemName: 'sbp',
      optionType: 1,
      doubtType: 1,
      userName: '监查员(13200000001)',
    });
    expect([String(thread.itemValue), String(thread.currentValue)]).toEqual(['130', '135']);
    expect(thread.messages.map((m: { kind: string }) => m.kind)).toEqual(['open', 'reply', 'close']);
    expect(thread.messages[1]).toMatchObject({ content: '已按原始病历更正为135', userName: '研究护士(13200000002)' });
    expect(String(thread.messages[1].itemValue)).toBe('135');
    expect((await t.call(monitor, 'PUT', '/api/business/doubt/close', { doubtId, content: '再次' })).status).toBe(409);
  });

  it('QRY-04/QRY-23: a replied query can be re-opened by the monitor with a new message', async () => {
    const { doubtId } = (
      await t.call(monitor, 'POST', '/api/business/doubt/open', {
        crfDataRecordId: recordId,
        itemName: 'hr',
        doubtDescription: '心率请核实',
      })
    ).body.data;
    await t.call(crc, 'PUT', '/api/business/doubt/reply', { doubtId, content: '无误' });
    const reopened = await t.call(monitor, 'POST', '/api/business/doubt/open', {
      doubtId,
      doubtDescription: '请附心电图',
    });
    expect(reopened.status).toBe(200);
    const thread = (await t.call(monitor, 'GET', `/api/business/doubt/${doubtId}`)).body.data;
    expect(thread.optionType).toBe(0);
    expect(thread.messages.map((m: { kind: string }) => m.kind)).toEqual(['open', 'reply', 'reopen']);
    await t.call(monitor, 'PUT', '/api/business/doubt/close', { doubtId, content: '已补充' });
  });

  it('QRY-06/QRY-07/QRY-11/QRY-25: permissions, saved records only, and the study doubt flag are enforced by the server', async () => {
    expect(
      (
        await t.call(crc, 'POST', '/api/business/doubt/open', {
          crfDataRecordId: recordId,
          itemName: 'dbp',
          doubtDescription: 'x',
        })
      ).status,
    ).toBe(403);
    const { doubtId } = (
      await t.call(monitor, 'POST', '/api/business/doubt/open', {
        crfDataRecordId: recordId,
        itemName: 'dbp',
        doubtDescription: '舒张压请核实',
      })
    ).body.data;
    expect((await t.call(monitor, 'PUT', '/api/business/doubt/reply', { doubtId, content: '我来答' })).status).toBe(
      403,
    );
    expect((await t.call(crc, 'PUT', '/api/business/doubt/close', { doubtId, content: '我来关' })).status).toBe(403);
    expect(
      (
        await t.call(monitor, 'POST', `/api/business/doubt/open?studyId=${studyId}`, {
          itemName: 'dbp',
          doubtDescription: '未保存',
        })
      ).body.msg,
    ).toBe('请先保存表单，再发起质疑');
    await t.call(admin, 'POST', '/api/business/study/doubt', { studyId, doubt: '0' });
    expect(
      (
        await t.call(monitor, 'POST', '/api/business/doubt/open', {
          crfDataRecordId: recordId,
          itemName: 'temp',
          doubtDescription: 'x',
        })
      ).body.msg,
    ).toBe('该项目未开启质疑');
    await t.call(admin, 'POST', '/api/business/study/doubt', { studyId, doubt: '1' });
    await t.call(monitor, 'PUT', '/api/business/doubt/close', { doubtId, content: '关闭' });
  });

  it('QRY-03: queries a row of a list group, keeping the row value', async () => {
    const surgery = crfIds['手术记录']!;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: surgery,
      version: 0,
      values: {
        implants: [
          { implant_name: '椎弓根螺钉', implant_qty: 4, implant_price: 3000 },
          { implant_name: '融合器', implant_qty: 1, implant_price: 8000 },
        ],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const opened = await t.call(monitor, 'POST', '/api/business/doubt/open', {
      crfDataRecordId: saved.body.data.crfDataRecordId,
      itemName: 'implant_qty',
      groupName: 'implants',
      groupIndex: 1,
      doubtDescription: '融合器数量请核实',
    });
    const thread = (await t.call(monitor, 'GET', `/api/business/doubt/${opened.body.data.doubtId}`)).body.data;
    expect(thread).toMatchObject({ groupName: 'implants', groupIndex: 1, itemName: 'implant_qty' });
    expect(String(thread.itemValue)).toBe('1');
    const list = (await t.call(monitor, 'GET', `/api/business/doubts?studyId=${studyId}&crfId=${surgery}&optionType=0`))
      .body.data;
    // The monitor's role lacks 查看患者身份信息: the patient's name comes masked (PIPL).
    expect(list.list[0]).toMatchObject({
      groupName: 'implants',
      groupIndex: 1,
      crfTitle: '手术记录',
      subjectName: '质***',
    });
  });
});

describe('system queries', () => {
  it('QRY-05: system queries are raised from the engine warnings at submit, never duplicated, and closed when the value is corrected', async () => {
    const subject = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '系统质疑',
      gender: 1,
      diseaseCode: 'LSS',
    });
    const srid = subject.body.data.subjectRecordId;
    const first = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: srid,
      crfId: vitals(),
      version: 0,
      values: { sbp: 190, dbp: 80, hr: 130 },
      submit: true,
    });
    const rid = first.body.data.crfDataRecordId;
    // System queries are raised and closed by their outbox subscriber once the save has committed.
    const system = async () => {
      await t.ctx.events.drain();
      return (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&crfDataRecordId=${rid}&doubtType=0`))
        .body.data.list;
    };
    const raised = await system();
    expect(
      raised.map((d: { itemName: string; doubtDescription: string }) => `${d.itemName}:${d.doubtDescription}`).sort(),
    ).toEqual(['hr:心率高于参考范围，请核实', 'sbp:收缩压≥180 mmHg，请核实', 'sbp:收缩压高于参考范围，请核实']);
    expect(
      raised.every((d: { userName: string; optionType: number }) => d.userName === '系统' && d.optionType === 0),
    ).toBe(true);
    await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: srid,
      crfId: vitals(),
      crfDataRecordId: rid,
      version: 1,
      values: { sbp: 190, dbp: 80, hr: 130, temp: 36.5 },
      reason: '补充体温',
    });
    expect(await system()).toHaveLength(3);
    await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: srid,
      crfId: vitals(),
      crfDataRecordId: rid,
      version: 2,
      values: { sbp: 135, dbp: 80, hr: 130, temp: 36.5 },
      reason: '更正血压',
    });
    const after = await system();
    expect(
      after.filter((d: { optionType: number }) => d.optionType === 0).map((d: { itemName: string }) => d.itemName),
    ).toEqual(['hr']);
    const closed = after.filter((d: { optionType: number }) => d.optionType === 1);
    expect(closed).toHaveLength(2);
    const [message] = await t.db
      .select()
      .from(doubtMessages)
      .where(eq(doubtMessages.doubtId, closed[0].doubtId))
      .orderBy(doubtMessages.id)
      .offset(1);
    expect(message).toMatchObject({ kind: 'auto_close', content: '数据已修正，系统自动关闭', userName: '系统' });
    expect(await t.db.select().from(doubts).where(eq(doubts.crfDataRecordId, rid))).toHaveLength(3);
  });

  it('QRY-22: the list filters by state, type, subject code and date, paged', async () => {
    const all = (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&pageSize=100`)).body.data;
    expect(all.total).toBeGreaterThan(4);
    const user = (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&doubtType=1&userName=监查员`))
      .body.data;
    expect(user.list.every((d: { doubtType: number }) => d.doubtType === 1)).toBe(true);
    const paged = (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&pageNum=2&pageSize=2`)).body
      .data;
    expect(paged.list).toHaveLength(2);
    const home = (await t.call(admin, 'GET', `/api/business/index?studyId=${studyId}`)).body.data;
    expect(home.doubts.open).toBeGreaterThan(0);
    expect(home.doubts.closed).toBeGreaterThan(0);
  });

  it('QRY-24: on the wire a query state is only 0 open, 2 replied or 1 closed, its type only 0 system or 1 user; other codes are refused', async () => {
    const all = (await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&pageSize=100`)).body.data;
    expect(all.list.length).toBeGreaterThan(0);
    for (const d of all.list as Array<{ optionType: number; doubtType: number }>) {
      expect([0, 1, 2]).toContain(d.optionType);
      expect([0, 1]).toContain(d.doubtType);
    }
    for (const code of [0, 1, 2]) {
      const list = (
        await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&optionType=${code}&pageSize=100`)
      ).body.data.list as Array<{ optionType: number }>;
      expect(list.every((d) => d.optionType === code)).toBe(true);
    }
    for (const query of ['optionType=3', 'optionType=-1', 'optionType=9', 'doubtType=2']) {
      const res = await t.call(admin, 'GET', `/api/business/doubts?studyId=${studyId}&${query}`);
      expect(res.status, query).toBe(400);
    }
  });
});
