/**
 * Analytes of the common Chinese lab reports (血常规, 生化, 尿常规) with their usual codes and the names hospitals
 * print for them. Used to give a row without a printed code its code, to correct a name the OCR misread by one
 * character, and to match a row to a form item that names the same analyte differently.
 */
export interface KnownAnalyte {
  code: string;
  /** The first is the usual name. */
  names: readonly string[];
}

export const KNOWN_ANALYTES: readonly KnownAnalyte[] = [
  // 血常规
  { code: 'WBC', names: ['白细胞计数', '白细胞', '白细胞总数'] },
  { code: 'RBC', names: ['红细胞计数', '红细胞', '红细胞总数'] },
  { code: 'HGB', names: ['血红蛋白', '血红蛋白浓度', 'Hb'] },
  { code: 'HCT', names: ['红细胞压积', '红细胞比容', '血细胞比容'] },
  { code: 'MCV', names: ['平均红细胞体积'] },
  { code: 'MCH', names: ['平均红细胞血红蛋白含量', '平均血红蛋白含量'] },
  { code: 'MCHC', names: ['平均红细胞血红蛋白浓度', '平均血红蛋白浓度'] },
  { code: 'RDW-CV', names: ['红细胞分布宽度', '红细胞体积分布宽度', 'RDW'] },
  { code: 'PLT', names: ['血小板计数', '血小板', '血小板总数'] },
  { code: 'MPV', names: ['平均血小板体积'] },
  { code: 'PCT', names: ['血小板压积', '血小板比容'] },
  { code: 'PDW', names: ['血小板分布宽度', '血小板体积分布宽度'] },
  { code: 'NEUT%', names: ['中性粒细胞百分比', '中性粒细胞比率', '中性粒细胞百分数'] },
  { code: 'LYMPH%', names: ['淋巴细胞百分比', '淋巴细胞比率', '淋巴细胞百分数'] },
  { code: 'MONO%', names: ['单核细胞百分比', '单核细胞比率'] },
  { code: 'EO%', names: ['嗜酸性粒细胞百分比', '嗜酸粒细胞百分比', '嗜酸性粒细胞比率'] },
  { code: 'BASO%', names: ['嗜碱性粒细胞百分比', '嗜碱粒细胞百分比', '嗜碱性粒细胞比率'] },
  { code: 'NEUT#', names: ['中性粒细胞绝对值', '中性粒细胞计数', '中性粒细胞数'] },
  { code: 'LYMPH#', names: ['淋巴细胞绝对值', '淋巴细胞计数', '淋巴细胞数'] },
  { code: 'MONO#', names: ['单核细胞绝对值', '单核细胞计数'] },
  { code: 'EO#', names: ['嗜酸性粒细胞绝对值', '嗜酸粒细胞绝对值', '嗜酸性粒细胞计数'] },
  { code: 'BASO#', names: ['嗜碱性粒细胞绝对值', '嗜碱粒细胞绝对值', '嗜碱性粒细胞计数'] },
  { code: 'CRP', names: ['C反应蛋白', '超敏C反应蛋白'] },
  // 生化
  { code: 'ALT', names: ['丙氨酸氨基转移酶', '谷丙转氨酶', '丙氨酸转氨酶'] },
  { code: 'AST', names: ['天门冬氨酸氨基转移酶', '天冬氨酸氨基转移酶', '谷草转氨酶', '天冬氨酸转氨酶'] },
  { code: 'ALP', names: ['碱性磷酸酶'] },
  { code: 'GGT', names: ['γ-谷氨酰转移酶', '谷氨酰转肽酶', 'γ-谷氨酰转肽酶', 'r-谷氨酰转移酶'] },
  { code: 'TP', names: ['总蛋白', '血清总蛋白'] },
  { code: 'ALB', names: ['白蛋白', '血清白蛋白'] },
  { code: 'GLB', names: ['球蛋白'] },
  { code: 'A/G', names: ['白球比', '白蛋白/球蛋白', '白球比例'] },
  { code: 'TBIL', names: ['总胆红素'] },
  { code: 'DBIL', names: ['直接胆红素', '结合胆红素'] },
  { code: 'IBIL', names: ['间接胆红素', '非结合胆红素'] },
  { code: 'GLU', names: ['葡萄糖', '血糖', '空腹血糖', '空腹葡萄糖'] },
  { code: 'BUN', names: ['尿素氮', '尿素'] },
  { code: 'CREA', names: ['肌酐', '血肌酐', 'Cr'] },
  { code: 'UA', names: ['尿酸', '血尿酸'] },
  { code: 'TC', names: ['总胆固醇', '胆固醇'] },
  { code: 'TG', names: ['甘油三酯', '甘油三脂'] },
  { code: 'HDL-C', names: ['高密度脂蛋白胆固醇', '高密度脂蛋白'] },
  { code: 'LDL-C', names: ['低密度脂蛋白胆固醇', '低密度脂蛋白'] },
  { code: 'K', names: ['钾', '血钾'] },
  { code: 'NA', names: ['钠', '血钠'] },
  { code: 'CL', names: ['氯', '血氯'] },
  { code: 'CA', names: ['钙', '血钙', '总钙'] },
  { code: 'P', names: ['磷', '无机磷', '血磷'] },
  { code: 'MG', names: ['镁', '血镁'] },
  { code: 'CK', names: ['肌酸激酶'] },
  { code: 'LDH', names: ['乳酸脱氢酶'] },
  // 尿常规
  { code: 'COL', names: ['颜色', '尿颜色'] },
  { code: 'CLA', names: ['透明度', '尿透明度', '浊度'] },
  { code: 'SG', names: ['比重', '尿比重'] },
  { code: 'PH', names: ['酸碱度', '尿酸碱度', 'pH值'] },
  { code: 'PRO', names: ['尿蛋白', '蛋白质', '蛋白'] },
  { code: 'U-GLU', names: ['尿糖', '尿葡萄糖'] },
  { code: 'KET', names: ['酮体', '尿酮体'] },
  { code: 'BIL', names: ['尿胆红素', '胆红素'] },
  { code: 'URO', names: ['尿胆原'] },
  { code: 'NIT', names: ['亚硝酸盐', '尿亚硝酸盐'] },
  { code: 'LEU', names: ['白细胞酯酶', '尿白细胞', '白细胞(尿)'] },
  { code: 'BLD', names: ['隐血', '尿隐血', '潜血'] },
  { code: 'VC', names: ['维生素C', '抗坏血酸'] },
];

/** Case, width, spaces and brackets do not distinguish two labels. */
export function normaliseLabel(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s()[\]{}（）【】<>《》:：·•'"“”‘’_]/g, '');
}

const byName = new Map<string, KnownAnalyte>();
const byCode = new Map<string, KnownAnalyte>();
for (const analyte of KNOWN_ANALYTES) {
  byCode.set(normaliseLabel(analyte.code), analyte);
  for (const name of analyte.names) if (!byName.has(normaliseLabel(name))) byName.set(normaliseLabel(name), analyte);
}

/** The known analyte a printed name or code stands for, if any. */
export function knownAnalyte(nameOrCode: string): KnownAnalyte | undefined {
  const key = normaliseLabel(nameOrCode.replace(/^\*+/, ''));
  if (!key) return undefined;
  return byName.get(key) ?? byCode.get(key);
}

function editDistanceAtMostOne(a: readonly string[], b: readonly string[]): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * The usual name of the known analyte a name read by OCR stands for when it is one character off (a name of at
 * least four characters: a shorter one is too easily another analyte), or the name as read.
 */
export function correctedName(name: string): string {
  const key = normaliseLabel(name);
  if (byName.has(key) || [...key].length < 4) return name;
  // By code point, not UTF-16 unit.
  const read = [...key];
  for (const [known, analyte] of byName) {
    const chars = [...known];
    if (chars.length >= 4 && editDistanceAtMostOne(read, chars)) {
      return analyte.names.find((n) => normaliseLabel(n) === known) ?? name;
    }
  }
  return name;
}
