import { describe, expect, it } from 'vitest';
import { chooseAutoCode } from './auto-code.js';
import { valuesWithCodes, withCodingVariables } from './coding-export.js';
import { matchKey } from './match-key.js';
import {
  meddraCodingOf,
  MeddraFormatError,
  MeddraMissingFileError,
  meddraTerms,
  parseLlt,
  parseMdhier,
  parsePt,
  splitAscLine,
  type DictionaryTerm,
} from './meddra.js';
import { csvRows, whodrugCodingOf, whodrugTerms, WhodrugFormatError } from './whodrug.js';

// A made-up dictionary in MedDRA's ASCII format (not MedDRA content): codes 9xxxxxxx, names invented.
const files = {
  'soc.asc': '90000001$虚构神经系统疾病$FkNerv$$$$$$$$$\n90000002$虚构胃肠系统疾病$FkGast$$$$$$$$$\n',
  'hlgt.asc': '90100001$虚构头痛类$$$$$$$$\n',
  'hlt.asc': '90200001$虚构头痛NEC$$$$$$$$\n',
  'soc_hlgt.asc': '90000001$90100001$\n',
  'hlgt_hlt.asc': '90100001$90200001$\n',
  'pt.asc': '90300001$头痛$$90000001$$$$$$$$\r\n90300002$恶心$$90000002$$$$$$$$\r\n',
  'mdhier.asc':
    '90300001$90200001$90100001$90000001$头痛$虚构头痛NEC$虚构头痛类$虚构神经系统疾病$FkNerv$$90000001$Y$\n' +
    '90300002$90200002$90100002$90000002$恶心$虚构恶心症状$虚构恶心呕吐类$虚构胃肠系统疾病$FkGast$$90000002$Y$\n',
  'llt.asc':
    '90300001$头痛$90300001$$$$$$$Y$$\n90400002$Headache$90300001$$$$$$$Y$$\n' +
    '90300002$恶心$90300002$$$$$$$Y$$\n90400004$作呕（旧称）$90300002$$$$$$$N$$\n',
};

describe('matchKey', () => {
  it.each([
    ['Headache', 'headache'],
    ['  ＨＥＡＤＡＣＨＥ  ', 'headache'],
    ['head   ache.', 'head ache'],
    ['头痛。', '头痛'],
    ['（轻度）头痛', '轻度 头痛'],
    ['Nausea,\tvomiting', 'nausea vomiting'],
    ['ＡＬＴ升高', 'alt升高'],
  ])('%j folds to %j', (text, key) => expect(matchKey(text)).toBe(key));
});

describe('MedDRA ASCII parsers', () => {
  it('split a line on $, dropping the closing one', () => {
    expect(splitAscLine('1$a$$b$')).toEqual(['1', 'a', '', 'b']);
  });

  it('read llt.asc by position: code, name, PT, currency in the 10th field', () => {
    expect(parseLlt(files['llt.asc'])).toEqual([
      { code: '90300001', name: '头痛', ptCode: '90300001', current: true },
      { code: '90400002', name: 'Headache', ptCode: '90300001', current: true },
      { code: '90300002', name: '恶心', ptCode: '90300002', current: true },
      { code: '90400004', name: '作呕（旧称）', ptCode: '90300002', current: false },
    ]);
  });

  it('read pt.asc with its primary SOC (4th field) and mdhier.asc with its primary flag', () => {
    expect(parsePt(files['pt.asc'])[1]).toEqual({ code: '90300002', name: '恶心', socCode: '90000002' });
    expect(parseMdhier(files['mdhier.asc'])[0]).toMatchObject({
      ptCode: '90300001',
      socName: '虚构神经系统疾病',
      primary: true,
    });
  });

  it('refuse a line without its fields, and a load without a required file', () => {
    expect(() => parseLlt('90300001\n')).toThrow(MeddraFormatError);
    expect(() => meddraTerms({ 'llt.asc': files['llt.asc'] })).toThrow(MeddraMissingFileError);
  });

  it('give every level its terms, a PT its primary path, an LLT its PT', () => {
    const terms = meddraTerms(files);
    expect(terms.filter((t) => t.level === 'llt')).toHaveLength(4);
    const pt = terms.find((t) => t.level === 'pt' && t.code === '90300001')!;
    expect(pt.extra).toMatchObject({
      hltCode: '90200001',
      hlgtCode: '90100001',
      socCode: '90000001',
      socName: '虚构神经系统疾病',
    });
    expect(terms.find((t) => t.level === 'hlt')!.parentCode).toBe('90100001');
    const llt = terms.find((t) => t.code === '90400002')!;
    expect(llt).toMatchObject({ matchKey: 'headache', parentCode: '90300001', current: true });
    expect(meddraCodingOf(llt, pt)).toEqual({
      kind: 'meddra',
      lltCode: '90400002',
      lltName: 'Headache',
      ptCode: '90300001',
      ptName: '头痛',
      hltCode: '90200001',
      hltName: '虚构头痛NEC',
      hlgtCode: '90100001',
      hlgtName: '虚构头痛类',
      socCode: '90000001',
      socName: '虚构神经系统疾病',
    });
  });
});

describe('WHODrug CSV', () => {
  it('reads quoted fields and every name of a drug', () => {
    expect(csvRows('a,"b, ""c"""\r\n1,2\n')).toEqual([
      ['a', 'b, "c"'],
      ['1', '2'],
    ]);
    const terms = whodrugTerms(
      'drug_name,drug_code,atc_code,atc_text,extra\n阿司匹林,900001,N02BA01,乙酰水杨酸,x\nAspirin,900001,N02BA01,乙酰水杨酸,\n',
    );
    expect(terms.map((t) => [t.code, t.matchKey])).toEqual([
      ['900001', '阿司匹林'],
      ['900001', 'aspirin'],
    ]);
    expect(whodrugCodingOf(terms[1]!)).toEqual({
      kind: 'whodrug',
      drugCode: '900001',
      drugName: 'Aspirin',
      atcCode: 'N02BA01',
      atcText: '乙酰水杨酸',
    });
  });

  it('refuses a file without the columns or a row without a code', () => {
    expect(() => whodrugTerms('code,name\n1,a\n')).toThrow(WhodrugFormatError);
    expect(() => whodrugTerms('drug_code,drug_name,atc_code,atc_text\n,a,,\n')).toThrow(WhodrugFormatError);
  });
});

describe('chooseAutoCode', () => {
  const t = (level: DictionaryTerm['level'], code: string, parentCode: string | null, current = true) => ({
    level,
    code,
    parentCode,
    current,
  });

  it('codes MedDRA to a current LLT only, and LLTs of one PT alike', () => {
    expect(chooseAutoCode('meddra', [t('llt', '2', 'P'), t('llt', '1', 'P')])?.code).toBe('1');
    expect(chooseAutoCode('meddra', [t('llt', '1', 'P', false)])).toBeNull();
    expect(chooseAutoCode('meddra', [t('pt', 'P', 'S')])).toBeNull();
  });

  it('leaves ambiguity and no match to a coder', () => {
    expect(chooseAutoCode('meddra', [t('llt', '1', 'P'), t('llt', '2', 'Q')])).toBeNull();
    expect(chooseAutoCode('whodrug', [t('drug', 'A', null), t('drug', 'B', null)])).toBeNull();
    expect(chooseAutoCode('whodrug', [t('drug', 'A', null), t('drug', 'A', null)])?.code).toBe('A');
    expect(chooseAutoCode('whodrug', [])).toBeNull();
  });
});

describe('coded terms in the export', () => {
  const node = { name: 'ae_term', title: '不良事件名称', type: 'input' as const, option: {}, children: [] };
  const variable = {
    name: 'ae_term',
    item: 'ae_term',
    title: '不良事件名称',
    kind: 'text' as const,
    choices: [],
    unit: '',
    node,
  };

  it('adds the term columns right after a coded item, by its kind', () => {
    const meddra = withCodingVariables([variable], new Map([['ae_term', 'meddra' as const]]));
    expect(meddra.map((v) => [v.name, v.title])).toEqual([
      ['ae_term', '不良事件名称'],
      ['ae_term_llt', '不良事件名称（LLT）'],
      ['ae_term_pt', '不良事件名称（PT）'],
      ['ae_term_soc', '不良事件名称（SOC）'],
    ]);
    expect(withCodingVariables([variable], new Map([['ae_term', 'whodrug' as const]])).map((v) => v.name)).toEqual([
      'ae_term',
      'ae_term_atc',
    ]);
    expect(withCodingVariables([variable], new Map())).toEqual([variable]);
  });

  it('puts the terms beside the values; an uncoded item adds nothing', () => {
    const coding = meddraCodingOf(
      { code: '1', name: '头疼' },
      { code: '2', name: '头痛', extra: { socCode: '3', socName: '神经' } },
    );
    expect(valuesWithCodes({ ae_term: '头疼' }, [{ itemName: 'ae_term', coding: { ...coding } }])).toEqual({
      ae_term: '头疼',
      ae_term_llt: '头疼',
      ae_term_pt: '头痛',
      ae_term_soc: '神经',
    });
    expect(valuesWithCodes({ ae_term: 'x' }, [{ itemName: 'ae_term', coding: null }])).toEqual({ ae_term: 'x' });
  });
});
