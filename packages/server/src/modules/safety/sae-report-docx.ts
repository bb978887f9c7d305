import { wordLibraries } from '../print/print.service.js';

// The two SAE report layouts as Word templates made in code (no binary asset to keep in step with the field list):
// a title, a few heading lines and one bordered table whose cells hold a label or a docxtemplater {tag}. The tags
// are filled from core's nmpaReportFields / ciomsReportFields; docxtemplater escapes every value.

/** A cell: a label (bold, shaded) or a tag's value, spanning `span` of the table's four columns. */
type Cell = { label: string; span?: number } | { tag: string; span?: number };
type Row = Cell[];

const L = (label: string, span?: number): Cell => ({ label, span });
const T = (tag: string, span?: number): Cell => ({ tag, span });

/** Four columns of an A4 page less 2 cm margins (twentieths of a point). */
const COLUMNS = [2000, 2760, 2000, 2760];

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function run(text: string, bold = false, size = 21) {
  return (
    `<w:r><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:eastAsia="SimSun"/>${bold ? '<w:b/>' : ''}` +
    `<w:sz w:val="${size}"/></w:rPr><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r>`
  );
}

function paragraph(text: string, opts: { bold?: boolean; size?: number; center?: boolean } = {}) {
  const jc = opts.center ? '<w:jc w:val="center"/>' : '';
  return `<w:p><w:pPr>${jc}<w:spacing w:after="60"/></w:pPr>${run(text, opts.bold, opts.size)}</w:p>`;
}

function cell(c: Cell) {
  const span = c.span ?? 1;
  const width = COLUMNS.slice(0, span).reduce((a, b) => a + b, 0);
  const shade = 'label' in c ? '<w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/>' : '';
  const body = 'label' in c ? run(c.label, true) : run(`{${c.tag}}`);
  return (
    `<w:tc><w:tcPr><w:tcW w:w="${width}" w:type="dxa"/>${span > 1 ? `<w:gridSpan w:val="${span}"/>` : ''}${shade}` +
    `</w:tcPr><w:p>${body}</w:p></w:tc>`
  );
}

function table(rows: Row[]) {
  const border = (side: string) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="000000"/>`;
  const borders = ['top', 'left', 'bottom', 'right', 'insideH', 'insideV'].map(border).join('');
  return (
    `<w:tbl><w:tblPr><w:tblW w:w="${COLUMNS.reduce((a, b) => a + b, 0)}" w:type="dxa"/>` +
    `<w:tblBorders>${borders}</w:tblBorders><w:tblLayout w:type="fixed"/></w:tblPr>` +
    `<w:tblGrid>${COLUMNS.map((w) => `<w:gridCol w:w="${w}"/>`).join('')}</w:tblGrid>` +
    rows.map((r) => `<w:tr>${r.map(cell).join('')}</w:tr>`).join('') +
    `</w:tbl>`
  );
}

const NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

async function templateOf(title: string, lead: string[], rows: Row[]): Promise<Buffer> {
  const { PizZip } = await wordLibraries();
  const zip = new PizZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const body =
    paragraph(title, { bold: true, size: 32, center: true }) +
    lead.map((line) => paragraph(line)).join('') +
    table(rows) +
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="567" w:footer="567" w:gutter="0"/></w:sectPr>';
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${NS}"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generate({ type: 'nodebuffer' });
}

/** The NMPA 严重不良事件报告表 (药物临床试验质量管理规范), its sections in the form's order. */
const NMPA_ROWS: Row[] = [
  [L('报告类型'), T('reportType'), L('报告时间'), T('reportTime')],
  [L('医疗机构及专业名称'), T('institution'), L('专业'), T('specialty')],
  [L('申报单位名称'), T('sponsor', 3)],
  [L('试验用药品名称'), T('drugNameCn'), L('英文名称'), T('drugNameEn')],
  [L('药品注册分类及剂型'), T('drugCategory'), L('剂型'), T('dosageForm')],
  [L('临床研究分类'), T('studyCategory'), L('临床试验适应症'), T('indication')],
  [L('受试者姓名缩写'), T('initials'), L('性别'), T('gender')],
  [L('出生日期'), T('birth'), L('身高（cm）'), T('height')],
  [L('体重（kg）'), T('weight'), L('受试者编号'), T('identificationCode')],
  [L('合并疾病及治疗'), T('comorbidity', 3)],
  [L('SAE的医学术语（诊断）'), T('term', 3)],
  [L('SAE情况'), T('seriousness', 3)],
  [L('死亡时间'), T('deathDate', 3)],
  [L('SAE发生时间'), T('onset'), L('研究者获知SAE时间'), T('aware')],
  [L('对试验用药采取的措施'), T('action', 3)],
  [L('SAE转归'), T('outcome', 3)],
  [L('SAE与试验药的关系'), T('causality', 3)],
  [L('SAE报道情况：国内'), T('reportedDomestic'), L('国外'), T('reportedAbroad')],
  [L('SAE发生及处理的详细情况'), T('details', 3)],
  [L('报告单位名称'), T('reportingUnit'), L('报告人职务/职称'), T('reporterTitle')],
  [L('报告人签名'), T('reporterSignature', 3)],
];

/** CIOMS I (Council for International Organizations of Medical Sciences) suspect adverse reaction report fields. */
const CIOMS_ROWS: Row[] = [
  [L('I. REACTION INFORMATION', 4)],
  [L('1. Patient initials'), T('initials'), L('1a. Country'), T('country')],
  [L('2. Date of birth'), T('birth'), L('2a. Age (years)'), T('age')],
  [L('3. Sex'), T('sex'), L('4–6. Reaction onset'), T('onset')],
  [L('8–12. Check all appropriate to adverse reaction'), T('seriousness', 3)],
  [L('7 + 13. Describe reaction(s) (including relevant tests/lab data)'), T('description', 3)],
  [L('II. SUSPECT DRUG(S) INFORMATION', 4)],
  [L('14. Suspect drug(s)'), T('suspectDrugs', 3)],
  [L('15. Daily dose(s)'), T('dailyDose'), L('16. Route(s) of administration'), T('route')],
  [L('17. Indication(s) for use'), T('indication', 3)],
  [L('18. Therapy dates (from/to)'), T('therapyDates'), L('19. Therapy duration'), T('therapyDuration')],
  [L('Action taken with suspect drug'), T('action', 3)],
  [
    L('20. Did reaction abate after stopping drug?'),
    T('dechallenge'),
    L('21. Did reaction reappear after reintroduction?'),
    T('rechallenge'),
  ],
  [L('III. CONCOMITANT DRUG(S) AND HISTORY', 4)],
  [L('22. Concomitant drug(s) and dates of administration'), T('concomitantDrugs', 3)],
  [L('23. Other relevant history'), T('history', 3)],
  [L('IV. MANUFACTURER INFORMATION', 4)],
  [L('24a. Name and address of manufacturer'), T('manufacturer', 3)],
  [L('Reporting site'), T('reporter'), L('24d. Report source'), T('reportSource')],
  [L('25a. Report type'), T('reportType'), L('Date of this report'), T('reportDate')],
];

/** Fills a layout's template with the tags' values; linebreaks keep multi-line values (the boxes, the description). */
async function render(template: Buffer, data: Record<string, string>): Promise<Buffer> {
  const { Docxtemplater, PizZip } = await wordLibraries();
  const doc = new Docxtemplater(new PizZip(template), { paragraphLoop: true, linebreaks: true, nullGetter: () => '' });
  doc.render(data);
  return doc.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export async function nmpaDocx(data: Record<string, string>): Promise<Buffer> {
  const template = await templateOf(
    '严重不良事件报告表（SAE）',
    ['研究名称：{studyName}（{studyCode}）    报告版本：第{version}版'],
    NMPA_ROWS,
  );
  return render(template, data);
}

export async function ciomsDocx(data: Record<string, string>): Promise<Buffer> {
  const template = await templateOf(
    'CIOMS FORM — SUSPECT ADVERSE REACTION REPORT',
    ['Study: {studyName} ({studyCode})    Subject: {identificationCode}    Report version: {version}'],
    CIOMS_ROWS,
  );
  return render(template, data);
}
