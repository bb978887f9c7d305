import { eq } from 'drizzle-orm';
import {
  allStudyPermissionKeys,
  countValueItems,
  lintDefinition,
  STUDY_ADMIN_ROLE,
  type CrfDefinition,
  type CrfNode,
} from '@ecrf/core';
import type { Db } from './client.js';
import {
  crfStageCrfs,
  crfStages,
  crfVersions,
  crfs,
  studies,
  studyDiseases,
  studyPersonnel,
  studyRoles,
  sysConfigs,
  users,
} from './schema/index.js';
import { ADMIN_USER_NAME } from './seed-data.js';

const item = (
  type: CrfNode['type'],
  name: string,
  title: string,
  option: CrfNode['option'] = {},
  children: CrfNode[] = [],
): CrfNode => ({
  name,
  title,
  type,
  option,
  children,
});

/**
 * A lumbar spinal stenosis surgery registry, the kind of study our users run: together its
 * forms use every item type, skip logic (trig, trigex, showIf), calculations, cross-field
 * checks and reference ranges, so a new installation can be tried end to end at once.
 */
export function demoCrfs(): Array<{ stage: string; repeat: 0 | 1; definition: CrfDefinition }> {
  const demographics: CrfDefinition = {
    title: '人口学资料',
    option: { cols: 2 },
    children: [
      item('section', 'demo_basic', '基本信息', { crfCols: 2 }, [
        item('title', '', '请依据身份证及病历如实填写', { showStyle: 'color: #007587' }),
        // Typed once in the patient dialog: a new 人口学资料 starts with them (patientField).
        item('radio', 'sex', '性别', {
          optionsValue: '1,2',
          optionsText: '男,女',
          required: 1,
          patientField: 'gender',
        }),
        // Identifiers (PIPL): masked for members without 查看患者身份信息 and left out of de-identified exports.
        item('date', 'birth', '出生日期', { showStyle: 'pastTime', required: 1, patientField: 'birth', identifier: 1 }),
        item('int', 'age', '年龄', { units: '岁', calc: 'age(birth)', readOnly: 1 }),
        item('select', 'ethnic', '民族', { optionsValue: 'han,hui,man,other', optionsText: '汉族,回族,满族,其他' }),
        item('multiSelect', 'insurance', '医保类型', {
          optionsValue: 'urban,rural,commercial,self',
          optionsText: '城镇职工,城乡居民,商业保险,自费',
        }),
        item('input', 'phone', '联系电话', { validate: { type: 'phone' }, identifier: 1 }),
        item('real', 'height', '身高', { units: 'cm', validate: { min: 100, max: 230 } }),
        item('real', 'weight', '体重', { units: 'kg', validate: { min: 25, max: 250 } }),
        item('number', 'bmi', '体质指数', { calc: 'bmi(weight, height)', format: 'precision:1:R', units: 'kg/m²' }),
      ]),
      item('section', 'demo_history', '既往史', { crfCols: 2 }, [
        item('radio', 'smoke', '吸烟', { optionsValue: '0,1,2', optionsText: '从不,已戒烟,目前吸烟' }),
        item('group', 'smoke_detail', '吸烟情况', { trigex: 'smoke:1,smoke:2' }, [
          item('int', 'smoke_years', '吸烟年数', { units: '年', validate: { min: 0, max: 80 } }),
          item('real', 'packs', '每日包数', { units: '包', showIf: 'smoke = 2' }),
        ]),
        item('checkbox', 'comorbid', '合并症', {
          optionsValue: 'htn,dm,chd,op,other',
          optionsText: '高血压,糖尿病,冠心病,骨质疏松,其他',
          addition: '请注明',
          additionIndex: '4',
        }),
        item('int', 'dm_years', '糖尿病病程', { units: '年', trigex: 'comorbid:1' }),
        item('textarea', 'history_note', '其他病史', { validate: { max: 500 } }),
      ]),
    ],
  };

  const vitals: CrfDefinition = {
    title: '生命体征',
    option: { cols: 2 },
    children: [
      item('section', 'vs', '生命体征', { crfCols: 2 }, [
        item('datetime', 'vs_at', '测量时间', { defaultValue: 'now', showStyle: 'pastTime' }),
        item('int', 'sbp', '收缩压', {
          units: 'mmHg',
          required: 1,
          validate: { min: 50, max: 260 },
          refValueMaleMin: 90,
          refValueMaleMax: 139,
          refValueFemaleMin: 90,
          refValueFemaleMax: 139,
          checks: [
            { expression: 'sbp > dbp', message: '收缩压应大于舒张压', severity: 'error' },
            { expression: 'sbp < 180', message: '收缩压≥180 mmHg，请核实', severity: 'warning' },
          ],
        }),
        item('int', 'dbp', '舒张压', {
          units: 'mmHg',
          required: 1,
          validate: { min: 30, max: 160 },
          refValueMaleMin: 60,
          refValueMaleMax: 89,
          refValueFemaleMin: 60,
          refValueFemaleMax: 89,
        }),
        item('int', 'hr', '心率', {
          units: '次/分',
          refValueMaleMin: 60,
          refValueMaleMax: 100,
          refValueFemaleMin: 60,
          refValueFemaleMax: 100,
        }),
        item('real', 'temp', '体温', { units: '℃', validate: { min: 34, max: 43, precision: 1 } }),
        item('time', 'vs_time', '复测时间', { format: 'Hour' }),
        item('slider', 'vas_back', '腰痛VAS评分', { valueMin: 0, valueMax: 10, valueStep: 1 }),
        item('slider', 'vas_leg', '腿痛VAS评分', { valueMin: 0, valueMax: 10, valueStep: 1 }),
      ]),
    ],
  };

  const labs: CrfDefinition = {
    title: '实验室检查',
    option: { cols: 2 },
    children: [
      item('section', 'lab', '血常规与炎症指标', { crfCols: 2 }, [
        item('date', 'lab_date', '采血日期', { showStyle: 'pastTime' }),
        item('real', 'hb', '血红蛋白', {
          units: 'g/L,g/dL',
          validate: { precision: 1 },
          refValueMaleMin: 130,
          refValueMaleMax: 175,
          refValueFemaleMin: 115,
          refValueFemaleMax: 150,
        }),
        item('real', 'wbc', '白细胞', {
          units: '×10⁹/L',
          refValueMaleMin: 3.5,
          refValueMaleMax: 9.5,
          refValueFemaleMin: 3.5,
          refValueFemaleMax: 9.5,
        }),
        item('real', 'crp', 'C反应蛋白', {
          units: 'mg/L',
          refValueMaleMin: 0,
          refValueMaleMax: 10,
          refValueFemaleMin: 0,
          refValueFemaleMax: 10,
        }),
        item('real', 'esr', '血沉', { units: 'mm/h' }),
        item('table', 'other_labs', '其他检验', {}, [
          item('input', 'lab_item', '检验项目'),
          item('real', 'lab_value', '结果'),
          item('text', 'lab_unit', '单位'),
          item('datetime', 'lab_at', '报告时间'),
        ]),
        item('fileUpload', 'lab_report', '化验单'),
      ]),
    ],
  };

  const imaging: CrfDefinition = {
    title: '影像学检查',
    option: { cols: 2 },
    children: [
      item('section', 'img', 'X线与MRI', { crfCols: 2 }, [
        item('date', 'img_date', '检查日期', { showStyle: 'pastTime', required: 1 }),
        item('real', 'cobb', '腰椎Cobb角', { units: '°', validate: { min: 0, max: 120, precision: 1 } }),
        item('real', 'll', '腰椎前凸角(LL)', { units: '°' }),
        item('select', 'meyerding', 'Meyerding滑脱分级', {
          optionsValue: '0,1,2,3,4',
          optionsText: '无滑脱,Ⅰ度,Ⅱ度,Ⅲ度,Ⅳ度',
        }),
        item('radio', 'instability', '动力位不稳', { optionsValue: '0,1', optionsText: '否,是' }),
        item('checkbox', 'stenosis_level', '狭窄节段', {
          optionsValue: 'L1/2,L2/3,L3/4,L4/5,L5/S1',
          optionsText: 'L1/2,L2/3,L3/4,L4/5,L5/S1',
        }),
        item('imageUpload', 'xray', '正侧位片'),
        item('spineCobb', 'spine_cobb', '脊柱Cobb角自动测量', {
          cols: 2,
          ptItem: 'cobb_pt',
          mtItem: 'cobb_mt',
          tlItem: 'cobb_tl',
          curveTypeItem: 'cobb_curve',
        }),
        item('real', 'cobb_pt', '自动测量主弯Cobb角(PT)', { units: '°' }),
        item('real', 'cobb_mt', '自动测量Cobb角(MT)', { units: '°' }),
        item('real', 'cobb_tl', '自动测量Cobb角(TL)', { units: '°' }),
        item('input', 'cobb_curve', '自动测量弯曲类型'),
        item('spineMeasure', 'spine_manual', '脊柱矢状面手动测量', { cols: 2 }),
        item('link', '', '在影像系统中查看', { url: '/pacs/oviyam2/viewer.html' }),
      ]),
    ],
  };

  const surgery: CrfDefinition = {
    title: '手术记录',
    option: { cols: 2 },
    children: [
      item('section', 'op', '手术信息', { crfCols: 2 }, [
        item('datetime', 'op_at', '手术开始时间', { required: 1, showStyle: 'pastTime' }),
        item('radio', 'approach', '手术方式', {
          optionsValue: 'open,mis,endo',
          optionsText: '开放减压融合,微创TLIF,脊柱内镜',
          required: 1,
        }),
        item('multiSelect', 'op_levels', '手术节段', {
          optionsValue: 'L1/2,L2/3,L3/4,L4/5,L5/S1',
          optionsText: 'L1/2,L2/3,L3/4,L4/5,L5/S1',
          required: 1,
        }),
        item('int', 'op_minutes', '手术时长', { units: '分钟', validate: { min: 10, max: 900 } }),
        item('int', 'blood_loss', '术中出血量', {
          units: 'ml',
          validate: { min: 0, max: 10000 },
          checks: [{ expression: 'blood_loss < 1500', message: '出血量≥1500 ml，请核实', severity: 'warning' }],
        }),
        item('listGroup', 'implants', '植入物', {}, [
          item('input', 'implant_name', '名称', { required: 1 }),
          item('text', 'implant_spec', '规格'),
          item('int', 'implant_qty', '数量'),
          item('real', 'implant_price', '单价', { units: '元' }),
          item('real', 'implant_amount', '金额', { units: '元', calc: 'implant_qty * implant_price' }),
        ]),
        item('checkbox', 'op_complication', '术中并发症', {
          optionsValue: 'none,dural,nerve,other',
          optionsText: '无,硬膜撕裂,神经损伤,其他',
        }),
        item(
          'group',
          'complication_detail',
          '并发症处理',
          { trigex: 'op_complication:1,op_complication:2,op_complication:3' },
          [item('textarea', 'complication_note', '处理经过', { required: 1 })],
        ),
        item('card', 'surgeon', '主刀医生确认', {}, [
          item('text', 'surgeon_name', '主刀医生'),
          item('date', 'surgeon_date', '确认日期', { defaultValue: 'now' }),
        ]),
      ]),
    ],
  };

  const followUp: CrfDefinition = {
    title: '术后随访',
    option: { cols: 2 },
    children: [
      item('section', 'fu', '随访', { crfCols: 2 }, [
        item('title', '', '术后3个月、6个月、1年各随访一次', {}),
        item('date', 'fu_date', '随访日期', { required: 1, showStyle: 'pastTime' }),
        // Days from the day of surgery (another form of the same patient) to the visit, not to today.
        item('int', 'fu_days', '术后天数', {
          units: '天',
          calc: 'datediff(date(form("手术记录", "op_at")), fu_date, "d")',
          readOnly: 1,
        }),
        item('slider', 'fu_vas', '腿痛VAS评分', { valueMin: 0, valueMax: 10, valueStep: 1 }),
        item('int', 'odi', 'ODI评分', {
          units: '%',
          validate: { min: 0, max: 100 },
          checks: [{ expression: 'odi <= 40', message: 'ODI>40%，功能障碍较重，请核实', severity: 'warning' }],
        }),
        item('radio', 'reoperation', '再次手术', { optionsValue: '0,1', optionsText: '否,是' }),
        item('partialDate', 'reop_date', '再次手术时间', { format: 'yyyy-MM', trig: 'reoperation', tindex: '1' }),
        item('time', 'fu_time', '随访时间', {}),
        item('videoUpload', 'gait', '步态视频'),
        item('fileUpload', 'fu_report', '随访资料'),
      ]),
    ],
  };

  return [
    { stage: '基线', repeat: 1, definition: demographics },
    { stage: '基线', repeat: 1, definition: vitals },
    { stage: '基线', repeat: 1, definition: labs },
    { stage: '基线', repeat: 1, definition: imaging },
    { stage: '手术', repeat: 1, definition: surgery },
    { stage: '术后随访', repeat: 0, definition: followUp },
  ];
}

const DEMO_FLAG = 'DemoStudySeeded';
export const DEMO_STUDY_CODE = 'DEMO-LSS';

/** Seeds the demo study once per installation; deleting it later does not bring it back. */
export async function seedDemoStudy(db: Db): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [flag] = await tx.select().from(sysConfigs).where(eq(sysConfigs.fieldName, DEMO_FLAG));
    if (flag) return false;
    const [admin] = await tx.select().from(users).where(eq(users.userName, ADMIN_USER_NAME));
    await tx
      .insert(sysConfigs)
      .values({ fieldName: DEMO_FLAG, configKey: 'internal', fieldValue: new Date().toISOString() });
    if (!admin) return false;

    const [study] = await tx
      .insert(studies)
      .values({
        studyName: '腰椎管狭窄症手术登记研究（示例）',
        studyCode: DEMO_STUDY_CODE,
        description: '多中心前瞻性登记：基线、手术及术后随访。本项目为系统示例，可随意试用或删除。',
        principal: '示例研究者',
        doubt: '1',
        enableSerialNumber: true,
        serialPrefix: 'LSS-',
        serialDigits: 4,
        displayCrfColumn: ['sex', 'age'],
        signConfig: { enabled: true, meaning: '本人确认以上数据真实、准确、完整' },
        // The demo shows a running study with its sample patients; a study a team creates starts in 测试.
        mode: 'production',
        wentLiveAt: new Date(),
        createdBy: admin.userId,
      })
      .returning({ studyId: studies.studyId });
    const studyId = study!.studyId;
    await tx.insert(studyDiseases).values([
      { studyId, diseaseName: '腰椎管狭窄症', diseaseCode: 'LSS' },
      { studyId, diseaseName: '腰椎滑脱症', diseaseCode: 'LDS' },
    ]);

    const stageIds = new Map<string, number>();
    const crfIds: number[] = [];
    for (const [index, { stage, repeat, definition }] of demoCrfs().entries()) {
      const lint = lintDefinition(definition);
      if (!lint.ok || !lint.definition) {
        throw new Error(`demo CRF ${definition.title} is invalid: ${JSON.stringify(lint.errors)}`);
      }
      let stageId = stageIds.get(stage);
      if (stageId === undefined) {
        const [row] = await tx
          .insert(crfStages)
          .values({ studyId, name: stage, orderNum: stageIds.size + 1 })
          .returning({ id: crfStages.id });
        stageId = row!.id;
        stageIds.set(stage, stageId);
      }
      const [crf] = await tx
        .insert(crfs)
        .values({ studyId, title: definition.title, createdBy: admin.userId })
        .returning({ id: crfs.id });
      crfIds.push(crf!.id);
      await tx.insert(crfVersions).values({
        crfId: crf!.id,
        studyId,
        version: 1,
        definition: { ...lint.definition, id: crf!.id },
        source: 'json',
        itemCount: countValueItems(definition.children),
        createdBy: admin.userId,
      });
      await tx.insert(crfStageCrfs).values({ stageId, crfId: crf!.id, studyId, repeat, orderNum: index + 1 });
    }
    const [role] = await tx
      .insert(studyRoles)
      .values({
        studyId,
        roleName: STUDY_ADMIN_ROLE,
        remark: '项目创建时生成，拥有项目内全部权限',
        permissions: allStudyPermissionKeys(crfIds),
      })
      .returning({ id: studyRoles.id });
    await tx
      .insert(studyPersonnel)
      .values({ studyId, userId: admin.userId, studyRoleId: role!.id, deptId: admin.deptId });
    return true;
  });
}
