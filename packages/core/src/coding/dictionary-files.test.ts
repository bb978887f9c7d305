import { describe, expect, it } from 'vitest';
import { DictionaryFileError, dictionaryTermsOf, isDictionaryFile, pickDictionaryFiles } from './dictionary-files.js';
import { MeddraMissingFileError } from './meddra.js';
import { WhodrugFormatError } from './whodrug.js';
import { parseB3AtcTexts, parseB3DrugAtc, parseB3Drugs, whodrugB3Terms } from './whodrug-b3.js';

// Made-up lines in WHODrug B3's fixed-width layout (not WHODrug content): record numbers 9xxxxx, names invented.
const FILL = 'T 2026 00000      '; // columns 12-29, fields the platform skips
const dd = `900001010011${FILL}阿司匹林\r\n900001010024${FILL}Aspirin   \r\n900003010012${FILL}布洛芬 缓释\r\n`;
const dda = '900001010011N02BA  263 Y\n900003010012M01AE  263 Y\n900003010012M02AA  263 Y\n';
const ina = 'N02BA  4虚构水杨酸类\nM01AE  4虚构丙酸衍生物\nM02AA  4虚构外用抗炎药\n';

describe('WHODrug B3 parsers (issue 37)', () => {
  it('DD.txt: record number, sequence numbers 1 and 2, the name from column 30 to the end', () => {
    expect(parseB3Drugs(dd)).toEqual([
      { drugCode: '90000101001', recordNumber: '900001', seq1: '01', seq2: '001', name: '阿司匹林' },
      { drugCode: '90000101002', recordNumber: '900001', seq1: '01', seq2: '002', name: 'Aspirin' },
      { drugCode: '90000301001', recordNumber: '900003', seq1: '01', seq2: '001', name: '布洛芬 缓释' },
    ]);
  });

  it('DDA.txt: the ATC code at columns 12-18; INA.txt: code, level, text', () => {
    expect(parseB3DrugAtc(dda)[0]).toEqual({ recordNumber: '900001', seq1: '01', atcCode: 'N02BA' });
    expect(parseB3AtcTexts(ina)[1]).toEqual({ atcCode: 'M01AE', level: 4, text: '虚构丙酸衍生物' });
  });

  it('terms: each name of a drug code, the ATC of its record number and sequence 1 (the first of several)', () => {
    const terms = whodrugB3Terms({ dd, dda, ina });
    expect(terms.map((t) => [t.code, t.name, t.matchKey, t.extra.atcCode, t.extra.atcText])).toEqual([
      ['90000101001', '阿司匹林', '阿司匹林', 'N02BA', '虚构水杨酸类'],
      ['90000101002', 'Aspirin', 'aspirin', 'N02BA', '虚构水杨酸类'],
      ['90000301001', '布洛芬 缓释', '布洛芬 缓释', 'M01AE', '虚构丙酸衍生物'],
    ]);
    expect(terms[2]!.extra.atcCodes).toEqual(['M01AE', 'M02AA']);
  });

  it.each([
    ['DD.txt', () => parseB3Drugs('9001 short\n')],
    ['DDA.txt', () => parseB3DrugAtc('900001010011\n')],
    ['INA.txt', () => parseB3AtcTexts('N02BA  x text\n')],
  ])('a line that does not fit the layout is refused, naming %s', (file, parse) => {
    expect(parse).toThrow(WhodrugFormatError);
    expect(parse).toThrow(`${file} 第 1 行`);
  });
});

describe('dictionary files of an upload (zip or loose)', () => {
  it('finds the files by name whatever the folder and case; skips the rest and Mac resource forks', () => {
    const picked = pickDictionaryFiles('meddra', [
      'MedDRA_27_0_Chinese/MedAscii/LLT.ASC',
      'MedDRA_27_0_Chinese/MedAscii/pt.asc',
      'MedDRA_27_0_Chinese/SeqAscii/llt.seq',
      '__MACOSX/MedAscii/._pt.asc',
      'readme.pdf',
    ]);
    expect([...picked]).toEqual([
      ['llt.asc', 'MedDRA_27_0_Chinese/MedAscii/LLT.ASC'],
      ['pt.asc', 'MedDRA_27_0_Chinese/MedAscii/pt.asc'],
    ]);
    expect(isDictionaryFile('whodrug', 'B3/DD.txt')).toBe(true);
    expect(isDictionaryFile('whodrug', 'B3/llt.asc')).toBe(false);
  });

  it('a name found twice: the MedAscii one wins, else the upload is refused naming the file', () => {
    expect(pickDictionaryFiles('meddra', ['a/MedAscii/soc.asc', 'b/soc.asc']).get('soc.asc')).toBe(
      'a/MedAscii/soc.asc',
    );
    expect(() => pickDictionaryFiles('meddra', ['a/soc.asc', 'b/soc.asc'])).toThrow('上传的文件中有多个 soc.asc');
  });

  it('WHODrug: B3 when any of its files is there (a missing one named), else the CSV; C3 refused by name', () => {
    const b3 = new Map([
      ['dd.txt', dd],
      ['dda.txt', dda],
      ['ina.txt', ina],
    ]);
    expect(dictionaryTermsOf('whodrug', b3)).toHaveLength(3);
    const noIna = new Map([...b3].filter(([n]) => n !== 'ina.txt'));
    expect(() => dictionaryTermsOf('whodrug', noIna)).toThrow(
      new DictionaryFileError('missing', 'ina.txt', '缺少 WHODrug B3 文件 INA.TXT'),
    );
    const csv = new Map([['x.csv', 'drug_code,drug_name,atc_code,atc_text\n1,A,N02BA01,t\n']]);
    expect(dictionaryTermsOf('whodrug', csv).map((t) => t.code)).toEqual(['1']);
    expect(() => dictionaryTermsOf('whodrug', new Map([['mp.txt', '']]))).toThrow('暂不支持 WHODrug C3 格式');
    expect(() => dictionaryTermsOf('meddra', new Map([['llt.asc', '']]))).toThrow(MeddraMissingFileError);
  });
});
