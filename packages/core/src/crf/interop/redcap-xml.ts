import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * The XML of REDCap's API (format=xml): a root element holding one element per row, each row's keys as
 * child elements with their text (`<records><item><record_id>1</record_id>…</item></records>`), or for a
 * single object the keys straight under the root (`<project>…</project>`). Values are always text.
 */
export type RedcapXmlRow = Readonly<Record<string, string | number | null | undefined>>;

/** The root and row element of each REDCap export, as REDCap writes them. */
export const REDCAP_XML_SHAPES = {
  records: { root: 'records', item: 'item' },
  metadata: { root: 'records', item: 'item' },
  instruments: { root: 'Instruments', item: 'Instrument' },
  fieldNames: { root: 'fields', item: 'field' },
  project: { root: 'project', item: null },
  arms: { root: 'arms', item: 'item' },
  events: { root: 'events', item: 'item' },
  formEventMapping: { root: 'items', item: 'item' },
  ids: { root: 'ids', item: 'id' },
  error: { root: 'hash', item: null },
} as const;

export type RedcapXmlShape = keyof typeof REDCAP_XML_SHAPES;

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" ?>\n';

/** Characters XML 1.0 cannot hold at all (not even escaped): left out rather than making the file unreadable. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

const text = (v: string | number | null | undefined) =>
  v === null || v === undefined ? '' : String(v).replace(NOT_XML, '');

const builder = new XMLBuilder({ format: true, indentBy: '', suppressEmptyNode: false, processEntities: true });

/**
 * Rows as REDCap's XML. `columns` fixes the order and the keys written (every row writes every column,
 * blank ones as empty elements, as REDCap does).
 */
export function writeRedcapXml(
  shape: RedcapXmlShape,
  rows: readonly RedcapXmlRow[] | RedcapXmlRow,
  columns?: readonly string[],
): string {
  const { root, item } = REDCAP_XML_SHAPES[shape];
  const element = (row: RedcapXmlRow) =>
    Object.fromEntries((columns ?? Object.keys(row)).map((key) => [key, text(row[key])]));
  let body: unknown;
  if (item === null) body = element(Array.isArray(rows) ? (rows[0] ?? {}) : (rows as RedcapXmlRow));
  else if (shape === 'ids') body = { id: (rows as readonly RedcapXmlRow[]).map((r) => text(r.id)) };
  else body = { [item]: (Array.isArray(rows) ? rows : [rows]).map(element) };
  return DECLARATION + (builder.build({ [root]: body }) as string);
}

/** A single value under its own element, as REDCap answers an import: `<count>3</count>`. */
export function writeRedcapXmlValue(name: string, value: string | number): string {
  return DECLARATION + (builder.build({ [name]: text(value) }) as string);
}

export class RedcapXmlError extends Error {}

/**
 * REDCap's record XML (`<records><item>…</item></records>`, flat or EAV) into rows of text. Refuses
 * what is not well-formed, a document type (entity definitions have no place in data), an unexpected root
 * and rows that are not flat (an element inside a value).
 */
export function readRedcapXml(source: string, root = 'records', item = 'item'): Array<Record<string, string>> {
  const xml = source.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE/i.test(xml)) throw new RedcapXmlError('XML 中不能含有 DOCTYPE');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new RedcapXmlError(`XML 格式不正确（第${valid.err.line}行：${valid.err.msg}）`);
  }
  const parser = new XMLParser({
    ignoreAttributes: true,
    ignoreDeclaration: true,
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
    htmlEntities: false,
    isArray: (name, path) => path === `${root}.${item}` && name === item,
  });
  const tree = parser.parse(xml) as Record<string, unknown>;
  if (!Object.hasOwn(tree, root)) throw new RedcapXmlError(`XML 的根元素应为 <${root}>`);
  const top = tree[root];
  if (top === null || top === undefined || (typeof top === 'string' && top.trim() === '')) return [];
  if (typeof top !== 'object') throw new RedcapXmlError(`<${root}> 中应为 <${item}> 元素`);
  const items = (top as Record<string, unknown>)[item];
  if (items === undefined) return [];
  return (items as unknown[]).map((entry, index) => {
    if (entry === null || (typeof entry === 'string' && entry.trim() === '')) return {};
    if (typeof entry !== 'object' || Array.isArray(entry)) {
      throw new RedcapXmlError(`第${index + 1}个 <${item}> 应由字段元素组成`);
    }
    const row: Record<string, string> = {};
    for (const [key, value] of Object.entries(entry as Record<string, unknown>)) {
      // The line breaks and indentation between a row's elements.
      if (key === '#text' && typeof value === 'string' && value.trim() === '') continue;
      if (key === '#text') throw new RedcapXmlError(`第${index + 1}个 <${item}> 中有不属于任何字段的文本`);
      if (Array.isArray(value)) throw new RedcapXmlError(`第${index + 1}个 <${item}> 中字段 ${key} 出现了多次`);
      if (value !== null && typeof value === 'object') {
        throw new RedcapXmlError(`第${index + 1}个 <${item}> 中字段 ${key} 的值不是文本`);
      }
      row[key] = value === null || value === undefined ? '' : String(value);
    }
    return row;
  });
}
