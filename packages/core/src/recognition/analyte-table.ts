import type { AnalyteMeasure, KnownAnalyte } from './analytes.js';

/**
 * The analytes of the common Chinese lab reports (血常规, 生化, 血脂, 电解质, 凝血, 尿常规): codes, the names hospitals
 * print, and for a quantitative analyte the units it is reported in with two ranges each (AnalyteMeasure):
 *
 * - `reference`: a typical adult reference range, to tell whether a printed range is this analyte's (a shifted row
 *   prints its neighbour's). Blood counts from WS/T 405-2012 (血细胞分析参考区间), chemistry from WS/T 404.1–404.8
 *   (临床常用生化检验项目参考区间; the male range where it differs by sex), the rest the ranges most Chinese hospitals
 *   print. A hospital's own range differs from these by far less than the factor the judgement allows (plausibility.ts).
 * - `plausible`: what a living patient can have, wide on purpose: a value outside is a misreading (a lost decimal
 *   point, a neighbour's value), not a disease. The bounds are extremes reported in clinical literature (leukaemic
 *   hyperleukocytosis, rhabdomyolysis, ischaemic hepatitis, chylomicronaemia, uraemia), rounded outwards.
 *
 * - `fractional`: printed with decimals everywhere, and a lost decimal point would still be plausible (4.1 → 41):
 *   a whole number above the range is offered. Not set where plausibility already catches it (血红蛋白 13.5 → 135 is
 *   fine, 钾 4.1 → 41 is implausible) or where hospitals print whole numbers (ALT, 肌酐).
 *
 * Units are spelled as `normaliseUnit` (units.ts) spells them. A unit marked `conventional` (mg/dL, g/dL …) is one
 * Chinese reports rarely print: a value in it is offered, not filled, unless the form item asks for that unit.
 */

const m = (
  units: string | readonly string[],
  plausible: readonly [number, number],
  reference: readonly [number, number],
  ...flags: ('conventional' | 'fractional')[]
): AnalyteMeasure => ({
  units: typeof units === 'string' ? [units] : units,
  plausible,
  reference,
  ...(flags.includes('conventional') ? { conventional: true as const } : {}),
  ...(flags.includes('fractional') ? { fractional: true as const } : {}),
});
const F = 'fractional';
const PER_L9 = '10^9/L';
const PERCENT_0_100 = [0, 100] as const;
const SECONDS = ['s', '秒', 'sec'];

export const ANALYTE_TABLE: readonly KnownAnalyte[] = [
  // 血常规 (WS/T 405-2012)
  // Aplasia after chemotherapy reads 0.0x; hyperleukocytosis of leukaemia rarely passes 500.
  {
    code: 'WBC',
    names: ['白细胞计数', '白细胞', '白细胞总数', '白细胞数目'],
    measures: [m(PER_L9, [0.01, 500], [3.5, 9.5], F)],
  },
  {
    code: 'RBC',
    names: ['红细胞计数', '红细胞', '红细胞总数', '红细胞数目'],
    measures: [m('10^12/L', [0.5, 10], [4.3, 5.8])],
  },
  {
    code: 'HGB',
    names: ['血红蛋白', '血红蛋白浓度', '血红蛋白量', 'Hb'],
    measures: [m('g/L', [20, 250], [130, 175]), m('g/dL', [2, 25], [13, 17.5], 'conventional')],
  },
  {
    code: 'HCT',
    names: ['红细胞压积', '红细胞比容', '红细胞比积', '血细胞比容'],
    // Printed both as a percentage and as the SI fraction.
    measures: [m('%', [5, 80], [40, 50]), m('L/L', [0.05, 0.8], [0.4, 0.5])],
  },
  { code: 'MCV', names: ['平均红细胞体积'], measures: [m('fL', [40, 160], [82, 100])] },
  {
    code: 'MCH',
    names: ['平均红细胞血红蛋白含量', '平均血红蛋白含量', '平均血红蛋白量'],
    measures: [m('pg', [10, 60], [27, 34])],
  },
  {
    code: 'MCHC',
    names: ['平均红细胞血红蛋白浓度', '平均血红蛋白浓度'],
    measures: [m('g/L', [200, 450], [316, 354]), m('g/dL', [20, 45], [31.6, 35.4], 'conventional')],
  },
  {
    code: 'RDW-CV',
    names: ['红细胞分布宽度', '红细胞体积分布宽度', 'RDW', '红细胞分布宽度-CV', '红细胞体积分布宽度-CV'],
    measures: [m('%', [8, 45], [11, 16])],
  },
  {
    code: 'RDW-SD',
    names: ['红细胞分布宽度-SD', '红细胞体积分布宽度-SD', '红细胞分布宽度标准差'],
    measures: [m('fL', [20, 150], [37, 54])],
  },
  // Immune thrombocytopenia reads 0–2; essential thrombocythaemia passes 2000.
  {
    code: 'PLT',
    names: ['血小板计数', '血小板', '血小板总数', '血小板数目'],
    measures: [m(PER_L9, [0, 3000], [125, 350])],
  },
  { code: 'MPV', names: ['平均血小板体积'], measures: [m('fL', [4, 20], [7.4, 12.5])] },
  { code: 'PCT', names: ['血小板压积', '血小板比容', '血小板比积'], measures: [m('%', [0, 2], [0.11, 0.28])] },
  // Printed in fL, in % or without a unit (it is a geometric standard deviation), in like numbers.
  {
    code: 'PDW',
    names: ['血小板分布宽度', '血小板体积分布宽度'],
    measures: [m('fL', [4, 40], [9, 17]), m('%', [4, 40], [9, 17]), m('', [4, 40], [9, 17])],
  },
  { code: 'P-LCR', names: ['大型血小板比率', '大血小板比率'], measures: [m('%', [5, 70], [13, 43])] },
  {
    code: 'NEUT%',
    names: ['中性粒细胞百分比', '中性粒细胞比率', '中性粒细胞百分数', '中性粒细胞%', 'NE%', 'GRAN%'],
    measures: [m('%', PERCENT_0_100, [40, 75], F)],
  },
  {
    code: 'LYMPH%',
    names: ['淋巴细胞百分比', '淋巴细胞比率', '淋巴细胞百分数', '淋巴细胞%', 'LY%', 'LYM%'],
    measures: [m('%', PERCENT_0_100, [20, 50], F)],
  },
  {
    code: 'MONO%',
    names: ['单核细胞百分比', '单核细胞比率', '单核细胞%', 'MO%', 'MON%'],
    measures: [m('%', PERCENT_0_100, [3, 10], F)],
  },
  {
    code: 'EO%',
    names: ['嗜酸性粒细胞百分比', '嗜酸粒细胞百分比', '嗜酸细胞百分比', '嗜酸性粒细胞比率', 'EOS%'],
    measures: [m('%', PERCENT_0_100, [0.4, 8], F)],
  },
  {
    code: 'BASO%',
    names: ['嗜碱性粒细胞百分比', '嗜碱粒细胞百分比', '嗜碱细胞百分比', '嗜碱性粒细胞比率', 'BA%'],
    measures: [m('%', PERCENT_0_100, [0, 1], F)],
  },
  {
    code: 'NEUT#',
    names: ['中性粒细胞绝对值', '中性粒细胞计数', '中性粒细胞数', 'NE#'],
    measures: [m(PER_L9, [0, 500], [1.8, 6.3], F)],
  },
  {
    code: 'LYMPH#',
    names: ['淋巴细胞绝对值', '淋巴细胞计数', '淋巴细胞数', 'LY#'],
    measures: [m(PER_L9, [0, 500], [1.1, 3.2], F)],
  },
  {
    code: 'MONO#',
    names: ['单核细胞绝对值', '单核细胞计数', '单核细胞数', 'MO#'],
    measures: [m(PER_L9, [0, 100], [0.1, 0.6], F)],
  },
  {
    code: 'EO#',
    names: ['嗜酸性粒细胞绝对值', '嗜酸粒细胞绝对值', '嗜酸性粒细胞计数', '嗜酸细胞数', 'EOS#'],
    measures: [m(PER_L9, [0, 100], [0.02, 0.52], F)],
  },
  {
    code: 'BASO#',
    names: ['嗜碱性粒细胞绝对值', '嗜碱粒细胞绝对值', '嗜碱性粒细胞计数', '嗜碱细胞数', 'BA#'],
    measures: [m(PER_L9, [0, 50], [0, 0.06], F)],
  },
  // The reference sits between CRP's 0–10 and hs-CRP's 0–3 so that both are this analyte's.
  {
    code: 'CRP',
    names: ['C反应蛋白', '超敏C反应蛋白', 'C-反应蛋白', '超敏C-反应蛋白', 'hs-CRP'],
    measures: [m('mg/L', [0, 1000], [0, 4]), m('mg/dL', [0, 100], [0, 0.4], 'conventional')],
  },

  // 肝功能 (WS/T 404.1, 404.2, 404.4); ischaemic hepatitis and paracetamol poisoning take transaminases past 10 000.
  {
    code: 'ALT',
    names: ['丙氨酸氨基转移酶', '谷丙转氨酶', '丙氨酸转氨酶', '血清丙氨酸氨基转移酶', 'GPT'],
    measures: [m(['U/L'], [0, 20000], [9, 50])],
  },
  {
    code: 'AST',
    names: [
      '天门冬氨酸氨基转移酶',
      '天冬氨酸氨基转移酶',
      '谷草转氨酶',
      '天冬氨酸转氨酶',
      '门冬氨酸氨基转移酶',
      '血清天门冬氨酸氨基转移酶',
      'GOT',
    ],
    measures: [m('U/L', [0, 40000], [15, 40])],
  },
  { code: 'ALP', names: ['碱性磷酸酶'], measures: [m('U/L', [0, 5000], [45, 125])] },
  {
    code: 'GGT',
    names: ['γ-谷氨酰转移酶', '谷氨酰转肽酶', 'γ-谷氨酰转肽酶', 'r-谷氨酰转移酶', 'γ-谷氨酰基转移酶', 'γ-GT'],
    measures: [m('U/L', [0, 5000], [10, 60])],
  },
  // Myeloma takes total protein and globulin past 120 g/L.
  {
    code: 'TP',
    names: ['总蛋白', '血清总蛋白'],
    measures: [m('g/L', [20, 150], [65, 85]), m('g/dL', [2, 15], [6.5, 8.5], 'conventional')],
  },
  {
    code: 'ALB',
    names: ['白蛋白', '血清白蛋白'],
    measures: [m('g/L', [5, 70], [40, 55]), m('g/dL', [0.5, 7], [4, 5.5], 'conventional')],
  },
  { code: 'GLB', names: ['球蛋白'], measures: [m('g/L', [5, 130], [20, 40])] },
  { code: 'A/G', names: ['白球比', '白蛋白/球蛋白', '白球比例'], measures: [m('', [0.05, 6], [1.2, 2.4])] },
  { code: 'PA', names: ['前白蛋白'], measures: [m('mg/L', [10, 1000], [200, 400]), m('g/L', [0.01, 1], [0.2, 0.4])] },
  // About 58 mg/dL: above the worst neonatal and fulminant hepatic failure values.
  {
    code: 'TBIL',
    names: ['总胆红素', '血清总胆红素', 'T-BIL'],
    measures: [m('μmol/L', [0, 1000], [0, 21], F), m('mg/dL', [0, 60], [0, 1.2], 'conventional')],
  },
  {
    code: 'DBIL',
    names: ['直接胆红素', '结合胆红素', 'D-BIL'],
    measures: [m('μmol/L', [0, 800], [0, 6.8], F), m('mg/dL', [0, 45], [0, 0.4], 'conventional')],
  },
  { code: 'IBIL', names: ['间接胆红素', '非结合胆红素', 'I-BIL'], measures: [m('μmol/L', [0, 800], [0, 17], F)] },
  { code: 'TBA', names: ['总胆汁酸', '血清总胆汁酸'], measures: [m('μmol/L', [0, 1000], [0, 10], F)] },
  {
    code: 'CHE',
    names: ['胆碱酯酶', '血清胆碱酯酶'],
    measures: [m('U/L', [100, 25000], [5000, 12000]), m('kU/L', [0.1, 25], [5, 12])],
  },

  // 血糖
  // Hyperosmolar states pass 60 mmol/L only exceptionally.
  {
    code: 'GLU',
    names: ['葡萄糖', '血糖', '空腹血糖', '空腹葡萄糖', '血清葡萄糖', '空腹血浆葡萄糖'],
    measures: [m('mmol/L', [0.5, 60], [3.9, 6.1], F), m('mg/dL', [9, 1100], [70, 110], 'conventional')],
  },
  {
    code: 'HbA1c',
    names: ['糖化血红蛋白', '糖化血红蛋白A1c', '糖化血红蛋白HbA1c'],
    measures: [m('%', [2, 25], [4, 6]), m('mmol/mol', [0, 250], [20, 42])],
  },

  // 肾功能 (WS/T 404.5)
  {
    code: 'BUN',
    names: ['尿素氮', '尿素', '血尿素氮', '血尿素', 'UREA'],
    measures: [m('mmol/L', [0.5, 100], [3.1, 8], F), m('mg/dL', [1, 300], [8.7, 22.4], 'conventional')],
  },
  {
    code: 'CREA',
    names: ['肌酐', '血肌酐', 'Cr', '肌酐(酶法)', '肌酐(苦味酸法)'],
    measures: [m('μmol/L', [5, 3000], [57, 111]), m('mg/dL', [0.05, 35], [0.64, 1.25], 'conventional')],
  },
  {
    code: 'UA',
    names: ['尿酸', '血尿酸', 'URIC'],
    measures: [
      m('μmol/L', [10, 2000], [208, 428]),
      m('mmol/L', [0.01, 2], [0.208, 0.428]),
      m('mg/dL', [0.2, 35], [3.5, 7.2], 'conventional'),
    ],
  },
  { code: 'CYSC', names: ['胱抑素C', '血清胱抑素C', '胱抑素-C'], measures: [m('mg/L', [0.1, 15], [0.5, 1.1], F)] },
  // Serum β2-microglobulin: no WS/T range; 1.0–3.0 mg/L is what most Chinese hospitals print (immunoassays print
  // ng/mL, about 600–2300). Dialysis and myeloma take it to 20–60 mg/L; printed with decimals (2.15).
  {
    code: 'β2-MG',
    names: ['β2微球蛋白', 'β2-微球蛋白', '血清β2微球蛋白', 'β2-MG', 'B2M'],
    measures: [m(['mg/L', 'μg/mL'], [0.1, 100], [1, 3], F), m(['ng/mL', 'μg/L'], [100, 100000], [1000, 3000])],
  },
  {
    code: 'CO2',
    names: ['二氧化碳结合力', '总二氧化碳', '二氧化碳', 'CO2CP', 'TCO2'],
    measures: [m('mmol/L', [2, 60], [22, 29])],
  },

  // 血脂; chylomicronaemia takes triglycerides past 100 mmol/L.
  {
    code: 'TC',
    names: ['总胆固醇', '胆固醇', '血清总胆固醇', 'CHOL'],
    measures: [m('mmol/L', [0.5, 30], [2.8, 5.2]), m('mg/dL', [20, 1200], [108, 200], 'conventional')],
  },
  {
    code: 'TG',
    names: ['甘油三酯', '甘油三脂', '三酰甘油'],
    measures: [m('mmol/L', [0.05, 150], [0.56, 1.7], F), m('mg/dL', [5, 13000], [50, 150], 'conventional')],
  },
  {
    code: 'HDL-C',
    names: ['高密度脂蛋白胆固醇', '高密度脂蛋白', '高密度脂蛋白-胆固醇', 'HDL'],
    measures: [m('mmol/L', [0.05, 5], [1.04, 1.9]), m('mg/dL', [2, 200], [40, 75], 'conventional')],
  },
  {
    code: 'LDL-C',
    names: ['低密度脂蛋白胆固醇', '低密度脂蛋白', '低密度脂蛋白-胆固醇', 'LDL'],
    measures: [m('mmol/L', [0, 25], [0, 3.4], F), m('mg/dL', [0, 1000], [0, 130], 'conventional')],
  },
  {
    code: 'APOA1',
    names: ['载脂蛋白A1', '载脂蛋白AI', '载脂蛋白A-I'],
    measures: [m('g/L', [0.05, 5], [1, 1.6])],
  },
  { code: 'APOB', names: ['载脂蛋白B', '载脂蛋白B100'], measures: [m('g/L', [0.05, 5], [0.6, 1.1])] },
  {
    code: 'LP(a)',
    names: ['脂蛋白(a)', '脂蛋白a'],
    measures: [
      m('mg/L', [0, 3000], [0, 300]),
      m('nmol/L', [0, 1000], [0, 75]),
      m('mg/dL', [0, 300], [0, 30], 'conventional'),
    ],
  },

  // 电解质 (WS/T 404.3, 404.6); mEq/L equals mmol/L for the monovalent ions.
  {
    code: 'K',
    names: ['钾', '血钾', '钾离子', '血清钾', 'K+'],
    measures: [m('mmol/L', [1, 10], [3.5, 5.3]), m('mEq/L', [1, 10], [3.5, 5.3], 'conventional')],
  },
  {
    code: 'NA',
    names: ['钠', '血钠', '钠离子', '血清钠', 'Na+'],
    measures: [m('mmol/L', [100, 200], [137, 147]), m('mEq/L', [100, 200], [137, 147], 'conventional')],
  },
  {
    code: 'CL',
    names: ['氯', '血氯', '氯离子', '血清氯', 'Cl-'],
    measures: [m('mmol/L', [60, 160], [99, 110]), m('mEq/L', [60, 160], [99, 110], 'conventional')],
  },
  {
    code: 'CA',
    names: ['钙', '血钙', '总钙', '血清钙'],
    measures: [m('mmol/L', [0.5, 5], [2.11, 2.52]), m('mg/dL', [2, 20], [8.5, 10.1], 'conventional')],
  },
  { code: 'P', names: ['磷', '无机磷', '血磷', '血清磷', 'PHOS'], measures: [m('mmol/L', [0.1, 6], [0.85, 1.51])] },
  { code: 'MG', names: ['镁', '血镁', '镁离子', '血清镁'], measures: [m('mmol/L', [0.1, 5], [0.75, 1.02])] },

  // 心肌酶 and others (WS/T 404.7, 404.8); rhabdomyolysis takes CK past 100 000.
  { code: 'CK', names: ['肌酸激酶', '肌酸磷酸激酶'], measures: [m('U/L', [0, 500000], [50, 310])] },
  {
    code: 'CK-MB',
    names: ['肌酸激酶同工酶', '肌酸激酶MB同工酶', '肌酸激酶-MB'],
    measures: [m('U/L', [0, 2000], [0, 25]), m(['ng/mL', 'μg/L'], [0, 1000], [0, 5])],
  },
  // α-羟丁酸脱氢酶 is no WS/T item: 72–182 U/L is the range most Chinese hospitals print. It measures LDH's heart
  // isoenzymes (LDH1, LDH2), so it rises with LDH in infarction, haemolysis and megaloblastic anaemia, where LDH
  // passes 10 000: its bound is LDH's scaled by that share, rounded. Before LDH: 丁酸脱氢酶 (羟 lost) is one
  // character from both names, and correctedName takes the first.
  {
    code: 'HBDH',
    names: ['α-羟丁酸脱氢酶', '羟丁酸脱氢酶', 'a-羟丁酸脱氢酶', 'α-HBDH'],
    measures: [m('U/L', [0, 20000], [72, 182])],
  },
  { code: 'LDH', names: ['乳酸脱氢酶', 'LD'], measures: [m('U/L', [0, 50000], [120, 250])] },
  { code: 'AMY', names: ['淀粉酶', '血淀粉酶', 'α-淀粉酶', '血清淀粉酶'], measures: [m('U/L', [0, 20000], [35, 135])] },

  // 凝血; anticoagulant overdoses take clotting times past 100 s and the INR past 10.
  { code: 'PT', names: ['凝血酶原时间', '血浆凝血酶原时间'], measures: [m(SECONDS, [5, 200], [9, 14], F)] },
  // No WS/T range: hospitals print 80–120 % or 70–130 %. Liver failure takes it to a few per cent; a short PT
  // (hypercoagulable states) rarely past 150 %. Printed as whole numbers.
  {
    code: 'PTA',
    names: ['凝血酶原活动度', '凝血酶原活动度(%)', '凝血酶原活度', '血浆凝血酶原活动度'],
    measures: [m('%', [0, 200], [80, 120])],
  },
  {
    code: 'INR',
    names: ['国际标准化比值', '国际标准化比率', 'PT国际标准化比值', 'PT-INR'],
    measures: [m('', [0.5, 20], [0.8, 1.2], F)],
  },
  {
    code: 'APTT',
    names: ['活化部分凝血活酶时间', '部分凝血活酶时间', '活化部分凝血酶原时间'],
    measures: [m(SECONDS, [10, 250], [25, 40], F)],
  },
  { code: 'TT', names: ['凝血酶时间', '血浆凝血酶时间'], measures: [m(SECONDS, [5, 250], [13, 21], F)] },
  {
    code: 'FIB',
    names: ['纤维蛋白原', '纤维蛋白原含量', '血浆纤维蛋白原', 'Fbg'],
    measures: [m('g/L', [0.1, 15], [2, 4]), m('mg/dL', [10, 1500], [200, 400], 'conventional')],
  },
  {
    code: 'D-D',
    names: ['D-二聚体', 'D二聚体', 'D-Dimer', 'DD'],
    measures: [m(['mg/L', 'μg/mL'], [0, 200], [0, 0.55], F), m(['ng/mL', 'μg/L'], [0, 200000], [0, 550])],
  },
  {
    code: 'FDP',
    names: ['纤维蛋白(原)降解产物', '纤维蛋白降解产物', '纤维蛋白原降解产物'],
    measures: [m(['mg/L', 'μg/mL'], [0, 1500], [0, 5], F)],
  },

  // 尿常规: dipstick results are qualitative (no measures) but for the specific gravity and the pH.
  { code: 'COL', names: ['颜色', '尿颜色'] },
  { code: 'CLA', names: ['透明度', '尿透明度', '浊度'] },
  // Refractometers after contrast media read up to about 1.060.
  { code: 'SG', names: ['比重', '尿比重'], measures: [m('', [1, 1.08], [1.003, 1.03])] },
  { code: 'PH', names: ['酸碱度', '尿酸碱度', 'pH值'], measures: [m('', [4, 10], [4.5, 8])] },
  { code: 'PRO', names: ['尿蛋白', '蛋白质', '尿蛋白质', '蛋白'] },
  { code: 'U-GLU', names: ['尿糖', '尿葡萄糖'] },
  { code: 'KET', names: ['酮体', '尿酮体'] },
  { code: 'BIL', names: ['尿胆红素', '胆红素'] },
  { code: 'URO', names: ['尿胆原', 'UBG'] },
  { code: 'NIT', names: ['亚硝酸盐', '尿亚硝酸盐'] },
  { code: 'LEU', names: ['白细胞酯酶', '尿白细胞', '白细胞(尿)', '白细胞(干化学)'] },
  { code: 'BLD', names: ['隐血', '尿隐血', '潜血', 'ERY'] },
  { code: 'VC', names: ['维生素C', '抗坏血酸'] },
  // 尿沉渣 by microscopy: counts per field printed as a range or a word (1-2 /HP, 偶见, 未见, 满视野), which the
  // numeric judgement cannot weigh, so no measures (as the dipstick). Usual limits: red cells 0-3 /HP, white cells
  // 0-5 /HP, epithelial cells 0-5 /HP, casts 0-1 /LP. Analysers counting per μL print 红细胞(沉渣) and the like.
  { code: 'U-RBC', names: ['红细胞(镜检)', '镜检红细胞', '尿红细胞', '尿沉渣红细胞'] },
  { code: 'U-WBC', names: ['白细胞(镜检)', '镜检白细胞', '尿沉渣白细胞'] },
  { code: 'EC', names: ['上皮细胞', '鳞状上皮细胞'] },
  { code: 'CAST', names: ['管型', '透明管型'] },
];
