/** Writing ODM 1.3.2 XML: escaping, attributes, texts, and where our own definition data goes. */

export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// Attribute values must keep their line breaks as character references, or parsers fold them to spaces.
export const escAttr = (s: string) => esc(s).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

export const attrs = (pairs: Record<string, string | number | undefined>) =>
  Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escAttr(String(v))}"`)
    .join('');

export const LANG = 'zh-CN';
export const translated = (text: string, lang = LANG) =>
  `<TranslatedText xml:lang="${lang}">${esc(text)}</TranslatedText>`;

/**
 * What ODM cannot say about our forms (the item type, name, id, options, a group's parent and position, …) is
 * written as Alias elements whose Context is `ecrf:<Key>` and whose Name is the value. Alias is the place the
 * ODM 1.3.2 schema itself gives FormDef, ItemGroupDef and ItemDef for names in another context, so the file
 * validates against the official schema unchanged, and other readers skip what they do not know. Files of
 * earlier versions carried the same keys as attributes of our namespace; the importer reads both (odm-xml.ts).
 */
export const ECRF_ALIAS_PREFIX = 'ecrf:';

export type EcrfKey =
  | 'CrfType'
  | 'CrfName'
  | 'CrfId'
  | 'CrfOption'
  | 'CrfRules'
  | 'CrfParent'
  | 'CrfOrder'
  | 'CrfTitle'
  | 'CrfChoiceOf'
  | 'CrfAdditionOf';

/** Alias elements for our keys, in the given order (ODM wants them last in their element). */
export const ecrfAliases = (pairs: Partial<Record<EcrfKey, string | number | undefined>>) =>
  Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<Alias${attrs({ Context: `${ECRF_ALIAS_PREFIX}${k}`, Name: String(v) })}/>`)
    .join('');
