/**
 * The analytes the generated lab sheets print, panel by panel, with the names, codes and unit spellings real
 * Chinese laboratory systems (LIS) print for them. The first name is the usual one: a CRF item is titled by it.
 * Codes follow KNOWN_ANALYTES of @ecrf/core where it knows the analyte; `codes` lists other codes hospitals print.
 */

/** A qualitative scale: its grades in order (a CRF's single-choice options) and the spellings of each grade. */
export interface Scale {
  grades: readonly string[];
  /** Per grade, the spellings sheets print; a sheet takes one spelling style for all its rows. */
  spellings: readonly (readonly string[])[];
  /** The reference range as printed, one per spelling style. */
  ranges: readonly string[];
}

const NEGATIVE = ['阴性', '阴性(-)', '-', '阴性', '(-)'];

export const SCALES = {
  /** Dipstick grades (protein, glucose, ketones, blood, leucocytes, bilirubin). */
  dipstick: {
    grades: ['阴性', '±', '1+', '2+', '3+'],
    spellings: [
      NEGATIVE,
      ['弱阳性', '+-', '±', '+-', '弱阳性(±)'],
      ['1+', '1+', '+', '1+', '阳性(+)'],
      ['2+', '2+', '++', '2+', '2+'],
      ['3+', '3+', '+++', '3+', '3+'],
    ],
    ranges: ['阴性', '阴性(-)', '-', '-', '阴性(-)'],
  },
  /** Negative or positive (nitrite). */
  posneg: {
    grades: ['阴性', '阳性'],
    spellings: [NEGATIVE, ['阳性', '阳性(+)', '+', '阳性', '(+)']],
    ranges: ['阴性', '阴性(-)', '-', '-', '阴性(-)'],
  },
  /** Urobilinogen. */
  uro: {
    grades: ['正常', '1+', '2+'],
    spellings: [
      ['正常', '正常', '正常', 'Normal', '正常'],
      ['1+', '1+', '+', '1+', '阳性(+)'],
      ['2+', '2+', '++', '2+', '2+'],
    ],
    ranges: ['正常', '正常', '正常', 'Normal', '正常'],
  },
} as const satisfies Record<string, Scale>;
export type ScaleName = keyof typeof SCALES;

/** Units with more than one spelling; a sheet takes one style (index) for all its rows. */
export const UNIT_SPELLINGS: Record<string, readonly string[]> = {
  '10^9/L': ['10^9/L', '10*9/L', '×10⁹/L', '10E9/L', 'x10^9/L', '10^9/L'],
  '10^12/L': ['10^12/L', '10*12/L', '×10¹²/L', '10E12/L', 'x10^12/L', '10^12/L'],
  'μmol/L': ['μmol/L', 'umol/L', 'µmol/L', 'umol/L', 'μmol/L', 'umol/L'],
  'U/L': ['U/L', 'U/L', 'IU/L', 'U/L', 'U/L', 'U/l'],
  'mmol/L': ['mmol/L', 'mmol/L', 'mmol/L', 'mmol/L', 'mmol/l', 'mmol/L'],
  fL: ['fL', 'fl', 'fL', 'fL', 'fl', 'fL'],
  s: ['s', '秒', 's', 'sec', 's', '秒'],
  'μg/mL': ['μg/mL', 'ug/mL', 'µg/ml', 'ug/ml', 'μg/mL', 'mg/L'],
};
export const UNIT_STYLES = 6;

export interface Analyte {
  /** The usual code: the one a CRF item carries in brackets, `白细胞计数(WBC)`. */
  code: string;
  /** Other codes hospitals print for it. */
  codes?: readonly string[];
  /** The first is the usual name; the others are spellings real sheets print. */
  names: readonly string[];
  /** A key of UNIT_SPELLINGS, or the unit as printed ('' for none). */
  unit: string;
  low?: number;
  high?: number;
  decimals?: number;
  /** A one-sided range: `<5` (values above are high) or `>1.04` (values below are low). */
  bound?: '<' | '>';
  scale?: ScaleName;
  /** Free-text results (colour, clarity) with their printed reference. */
  texts?: readonly string[];
  textRange?: string;
  /** A microscopy count per field (`1-2 /HP`), its normal upper limit. */
  perField?: { unit: '/HP' | '/LP'; high: number };
}

const n = (
  code: string,
  names: string[],
  unit: string,
  low: number,
  high: number,
  decimals: number,
  extra: Partial<Analyte> = {},
): Analyte => ({ code, names, unit, low, high, decimals, ...extra });

export const PANELS = {
  血常规: [
    n('WBC', ['白细胞计数', '白细胞', '白细胞数目', '*白细胞计数'], '10^9/L', 3.5, 9.5, 2),
    n('NEUT%', ['中性粒细胞百分比', '中性粒细胞比率', '中性粒细胞%'], '%', 40, 75, 1, { codes: ['NE%', 'GRAN%'] }),
    n('LYMPH%', ['淋巴细胞百分比', '淋巴细胞比率', '淋巴细胞%'], '%', 20, 50, 1, { codes: ['LY%', 'LYM%'] }),
    n('MONO%', ['单核细胞百分比', '单核细胞比率', '单核细胞%'], '%', 3, 10, 1, { codes: ['MO%', 'MON%'] }),
    n('EO%', ['嗜酸性粒细胞百分比', '嗜酸细胞百分比', '嗜酸性粒细胞比率'], '%', 0.4, 8, 1, { codes: ['EOS%'] }),
    n('BASO%', ['嗜碱性粒细胞百分比', '嗜碱细胞百分比', '嗜碱性粒细胞比率'], '%', 0, 1, 1, { codes: ['BA%'] }),
    n('NEUT#', ['中性粒细胞绝对值', '中性粒细胞数', '中性粒细胞计数'], '10^9/L', 1.8, 6.3, 2, { codes: ['NE#'] }),
    n('LYMPH#', ['淋巴细胞绝对值', '淋巴细胞数', '淋巴细胞计数'], '10^9/L', 1.1, 3.2, 2, { codes: ['LY#'] }),
    n('MONO#', ['单核细胞绝对值', '单核细胞数'], '10^9/L', 0.1, 0.6, 2, { codes: ['MO#'] }),
    n('EO#', ['嗜酸性粒细胞绝对值', '嗜酸细胞数'], '10^9/L', 0.02, 0.52, 2, { codes: ['EOS#'] }),
    n('BASO#', ['嗜碱性粒细胞绝对值', '嗜碱细胞数'], '10^9/L', 0, 0.06, 2, { codes: ['BA#'] }),
    n('RBC', ['红细胞计数', '红细胞', '红细胞数目'], '10^12/L', 4.3, 5.8, 2),
    n('HGB', ['血红蛋白', '血红蛋白浓度', '血红蛋白量'], 'g/L', 130, 175, 0, { codes: ['Hb'] }),
    n('HCT', ['红细胞压积', '红细胞比积', '血细胞比容'], '%', 40, 50, 1),
    n('MCV', ['平均红细胞体积'], 'fL', 82, 100, 1),
    n('MCH', ['平均红细胞血红蛋白含量', '平均血红蛋白量'], 'pg', 27, 34, 1),
    n('MCHC', ['平均红细胞血红蛋白浓度', '平均血红蛋白浓度'], 'g/L', 316, 354, 0),
    n('RDW-CV', ['红细胞分布宽度', '红细胞分布宽度CV', '红细胞体积分布宽度'], '%', 11, 16, 1, { codes: ['RDW'] }),
    n('PLT', ['血小板计数', '血小板', '血小板数目'], '10^9/L', 125, 350, 0),
    n('MPV', ['平均血小板体积'], 'fL', 7.4, 12.5, 1),
    n('PDW', ['血小板分布宽度', '血小板体积分布宽度'], '%', 9, 17, 1),
    n('PCT', ['血小板压积', '血小板比积'], '%', 0.108, 0.282, 3),
    n('CRP', ['C反应蛋白', '超敏C反应蛋白'], 'mg/L', 0, 10, 2, { bound: '<', codes: ['hs-CRP'] }),
  ],
  肝功: [
    n('ALT', ['丙氨酸氨基转移酶', '谷丙转氨酶', '丙氨酸转氨酶'], 'U/L', 9, 50, 0, { codes: ['GPT'] }),
    n('AST', ['天门冬氨酸氨基转移酶', '谷草转氨酶', '天冬氨酸氨基转移酶'], 'U/L', 15, 40, 0, { codes: ['GOT'] }),
    n('ALP', ['碱性磷酸酶'], 'U/L', 45, 125, 0),
    n('GGT', ['γ-谷氨酰转移酶', '谷氨酰转肽酶', 'γ-谷氨酰转肽酶'], 'U/L', 10, 60, 0, { codes: ['γ-GT'] }),
    n('TP', ['总蛋白', '血清总蛋白'], 'g/L', 65, 85, 1),
    n('ALB', ['白蛋白', '血清白蛋白'], 'g/L', 40, 55, 1),
    n('GLB', ['球蛋白'], 'g/L', 20, 40, 1),
    n('A/G', ['白球比', '白蛋白/球蛋白', '白球比例'], '', 1.2, 2.4, 2),
    n('TBIL', ['总胆红素', '血清总胆红素'], 'μmol/L', 0, 21, 1, { codes: ['T-BIL'] }),
    n('DBIL', ['直接胆红素', '结合胆红素'], 'μmol/L', 0, 6.8, 1, { codes: ['D-BIL'] }),
    n('IBIL', ['间接胆红素', '非结合胆红素'], 'μmol/L', 1.7, 13.2, 1, { codes: ['I-BIL'] }),
    n('TBA', ['总胆汁酸'], 'μmol/L', 0, 10, 1),
  ],
  肾功: [
    n('UREA', ['尿素', '尿素氮', '血尿素'], 'mmol/L', 3.1, 8, 2, { codes: ['BUN'] }),
    n('CREA', ['肌酐', '血肌酐', '肌酐(酶法)'], 'μmol/L', 57, 111, 0, { codes: ['CR', 'Cr'] }),
    n('UA', ['尿酸', '血尿酸'], 'μmol/L', 208, 428, 0, { codes: ['URIC'] }),
    n('CysC', ['胱抑素C', '血清胱抑素C'], 'mg/L', 0.59, 1.03, 2),
    n('β2-MG', ['β2微球蛋白', 'β2-微球蛋白'], 'mg/L', 1, 3, 2, { codes: ['B2M'] }),
  ],
  血脂: [
    n('TC', ['总胆固醇', '胆固醇'], 'mmol/L', 2.8, 5.2, 2, { codes: ['CHOL'] }),
    n('TG', ['甘油三酯', '甘油三脂'], 'mmol/L', 0.56, 1.7, 2),
    n('HDL-C', ['高密度脂蛋白胆固醇', '高密度脂蛋白'], 'mmol/L', 1.04, 2, 2, { bound: '>', codes: ['HDL'] }),
    n('LDL-C', ['低密度脂蛋白胆固醇', '低密度脂蛋白'], 'mmol/L', 0, 3.37, 2, { bound: '<', codes: ['LDL'] }),
    n('ApoA1', ['载脂蛋白A1', '载脂蛋白AI'], 'g/L', 1, 1.6, 2, { codes: ['APOA1'] }),
    n('ApoB', ['载脂蛋白B'], 'g/L', 0.6, 1.1, 2, { codes: ['APOB'] }),
    n('Lp(a)', ['脂蛋白(a)', '脂蛋白a'], 'mg/L', 0, 300, 0, { bound: '<', codes: ['LPA'] }),
  ],
  电解质: [
    n('K', ['钾', '血清钾', '钾离子'], 'mmol/L', 3.5, 5.3, 2, { codes: ['K+'] }),
    n('NA', ['钠', '血清钠', '钠离子'], 'mmol/L', 137, 147, 1, { codes: ['Na', 'Na+'] }),
    n('CL', ['氯', '血清氯', '氯离子'], 'mmol/L', 99, 110, 1, { codes: ['Cl', 'Cl-'] }),
    n('CA', ['钙', '血清钙', '总钙'], 'mmol/L', 2.11, 2.52, 2, { codes: ['Ca'] }),
    n('P', ['磷', '无机磷', '血清磷'], 'mmol/L', 0.85, 1.51, 2, { codes: ['PHOS'] }),
    n('MG', ['镁', '血清镁'], 'mmol/L', 0.75, 1.02, 2, { codes: ['Mg'] }),
    n('CO2', ['二氧化碳结合力', '总二氧化碳'], 'mmol/L', 22, 29, 1, { codes: ['TCO2'] }),
    n('GLU', ['葡萄糖', '空腹血糖', '血糖'], 'mmol/L', 3.9, 6.1, 2),
  ],
  凝血: [
    n('PT', ['凝血酶原时间'], 's', 11, 14.5, 1),
    n('INR', ['国际标准化比值', 'PT国际标准化比值'], '', 0.8, 1.2, 2, { codes: ['PT-INR'] }),
    n('PTA', ['凝血酶原活动度', '凝血酶原活动度(%)'], '%', 80, 120, 0),
    n('APTT', ['活化部分凝血活酶时间', '部分凝血活酶时间'], 's', 25, 37, 1),
    n('FIB', ['纤维蛋白原', '纤维蛋白原含量'], 'g/L', 2, 4, 2, { codes: ['Fbg'] }),
    n('TT', ['凝血酶时间'], 's', 14, 21, 1),
    n('D-D', ['D-二聚体', 'D二聚体'], 'mg/L', 0, 0.55, 2, { bound: '<', codes: ['DD', 'D-Dimer'] }),
    n('FDP', ['纤维蛋白(原)降解产物', '纤维蛋白降解产物'], 'μg/mL', 0, 5, 1, { bound: '<' }),
  ],
  心肌酶: [
    n('CK', ['肌酸激酶', '肌酸磷酸激酶'], 'U/L', 50, 310, 0),
    n('CK-MB', ['肌酸激酶同工酶', '肌酸激酶MB同工酶'], 'U/L', 0, 24, 1, { bound: '<' }),
    n('LDH', ['乳酸脱氢酶'], 'U/L', 120, 250, 0, { codes: ['LD'] }),
    n('HBDH', ['α-羟丁酸脱氢酶', '羟丁酸脱氢酶'], 'U/L', 72, 182, 0, { codes: ['α-HBDH'] }),
  ],
  尿常规: [
    {
      code: 'COL',
      names: ['颜色', '尿颜色'],
      unit: '',
      texts: ['淡黄色', '黄色', '淡黄色', '深黄色'],
      textRange: '淡黄色',
    },
    { code: 'CLA', names: ['透明度', '浊度'], unit: '', texts: ['清', '清亮', '微浑', '清'], textRange: '清' },
    n('SG', ['尿比重', '比重'], '', 1.003, 1.03, 3),
    n('PH', ['酸碱度', '尿酸碱度', 'pH值'], '', 4.5, 8, 1),
    { code: 'PRO', names: ['尿蛋白', '蛋白质', '尿蛋白质'], unit: '', scale: 'dipstick' },
    { code: 'U-GLU', names: ['尿葡萄糖', '尿糖', '葡萄糖'], unit: '', scale: 'dipstick', codes: ['GLU'] },
    { code: 'KET', names: ['酮体', '尿酮体'], unit: '', scale: 'dipstick' },
    { code: 'BIL', names: ['尿胆红素', '胆红素'], unit: '', scale: 'dipstick' },
    { code: 'URO', names: ['尿胆原'], unit: '', scale: 'uro', codes: ['UBG'] },
    { code: 'NIT', names: ['亚硝酸盐', '尿亚硝酸盐'], unit: '', scale: 'posneg' },
    { code: 'LEU', names: ['白细胞酯酶', '尿白细胞', '白细胞(干化学)'], unit: '', scale: 'dipstick' },
    { code: 'BLD', names: ['隐血', '尿隐血', '潜血'], unit: '', scale: 'dipstick', codes: ['ERY'] },
    { code: 'U-RBC', names: ['红细胞(镜检)', '镜检红细胞', '尿红细胞'], unit: '', perField: { unit: '/HP', high: 3 } },
    {
      code: 'U-WBC',
      names: ['白细胞(镜检)', '镜检白细胞', '尿沉渣白细胞'],
      unit: '',
      perField: { unit: '/HP', high: 5 },
    },
    { code: 'EC', names: ['上皮细胞', '鳞状上皮细胞'], unit: '', perField: { unit: '/HP', high: 5 } },
    { code: 'CAST', names: ['管型', '透明管型'], unit: '', perField: { unit: '/LP', high: 1 } },
  ],
} satisfies Record<string, readonly Analyte[]>;
export type PanelName = keyof typeof PANELS;

/** The titles sheets print for a panel. */
export const PANEL_TITLES: Record<PanelName, readonly string[]> = {
  血常规: ['血常规', '血细胞分析', '全血细胞计数+CRP', '血常规五分类'],
  肝功: ['肝功能', '肝功能全套', '生化检验报告'],
  肾功: ['肾功能', '肾功三项', '生化检验报告'],
  血脂: ['血脂四项', '血脂全套', '生化检验报告'],
  电解质: ['电解质', '电解质+血糖', '生化检验报告'],
  凝血: ['凝血四项', '凝血功能', 'DIC全套'],
  心肌酶: ['心肌酶谱', '心肌酶'],
  尿常规: ['尿常规', '尿液分析', '尿液分析+沉渣'],
};

/** The catalogue entry of a code, in any panel. */
export function analyteOf(code: string): Analyte | undefined {
  for (const list of Object.values(PANELS) as readonly Analyte[][]) {
    const found = list.find((a) => a.code === code);
    if (found) return found;
  }
  return undefined;
}
