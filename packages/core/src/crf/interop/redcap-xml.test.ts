import { XMLParser } from 'fast-xml-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRedcapXml, RedcapXmlError, writeRedcapXml, writeRedcapXmlValue } from './redcap-xml.js';

const parse = (xml: string) => new XMLParser({ parseTagValue: false, ignoreDeclaration: true }).parse(xml) as unknown;

describe('REDCap XML', () => {
  it.each([
    ['records', [{ record_id: '1', w: '' }], { records: { item: { record_id: '1', w: '' } } }],
    ['metadata', [{ field_name: 'a' }], { records: { item: { field_name: 'a' } } }],
    ['instruments', [{ instrument_name: 'f' }], { Instruments: { Instrument: { instrument_name: 'f' } } }],
    ['fieldNames', [{ original_field_name: 'a' }], { fields: { field: { original_field_name: 'a' } } }],
    ['project', { project_id: 3 }, { project: { project_id: '3' } }],
    ['error', { error: 'x' }, { hash: { error: 'x' } }],
    ['ids', [{ id: 'a' }, { id: 'b' }], { ids: { id: ['a', 'b'] } }],
  ] as const)('writes %s in REDCap’s shape', (shape, rows, expected) => {
    const xml = writeRedcapXml(shape, rows);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8" ?>\n')).toBe(true);
    expect(parse(xml)).toEqual(expected);
  });

  it('writes a count as its own element', () => {
    expect(parse(writeRedcapXmlValue('count', 2))).toEqual({ count: '2' });
  });

  it('reads back what it writes, whatever the text (markup characters, CDATA ends, line breaks, Chinese)', () => {
    const value = fc.string({ unit: fc.constantFrom('a', '<', '>', '&', '"', "'", ']]>', '\n', '中', ' ', '\t') });
    fc.assert(
      fc.property(fc.array(fc.record({ record_id: value, note: value }), { maxLength: 5 }), (rows) => {
        const back = readRedcapXml(writeRedcapXml('records', rows, ['record_id', 'note']));
        expect(back).toEqual(rows.map((r) => ({ record_id: r.record_id, note: r.note })));
      }),
    );
  });

  it('reads CDATA as REDCap writes it, empty elements as blanks and an empty file as no rows', () => {
    expect(readRedcapXml('<records><item><a><![CDATA[x<y]]></a><b/></item></records>')).toEqual([{ a: 'x<y', b: '' }]);
    expect(readRedcapXml('<?xml version="1.0"?>\n<records>\n</records>')).toEqual([]);
  });

  it.each([
    ['<records><item>', 'XML 格式不正确'],
    ['<!DOCTYPE r [<!ENTITY a "x">]><records/>', 'DOCTYPE'],
    ['<rows><item><a>1</a></item></rows>', '<records>'],
    ['<records><item><a><b>1</b></a></item></records>', '不是文本'],
    ['<records><item><a>1</a><a>2</a></item></records>', '多次'],
    ['<records><item>loose<a>1</a></item></records>', '文本'],
  ])('refuses %s', (xml, message) => {
    expect(() => readRedcapXml(xml)).toThrow(RedcapXmlError);
    expect(() => readRedcapXml(xml)).toThrow(message);
  });
});
