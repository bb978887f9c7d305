/** Reading the tree fast-xml-parser gives for an ODM file: attributes as @Name, namespace prefixes removed. */
export type XmlNode = Record<string, unknown>;

export const attr = (node: XmlNode | undefined, name: string): string | undefined => {
  const v = node?.[`@${name}`];
  return v === undefined ? undefined : String(v);
};

export const list = (node: XmlNode | undefined, name: string): XmlNode[] =>
  (node?.[name] as XmlNode[] | undefined) ?? [];

/**
 * One of our own keys on an ODM element (odm-write.ts): its `ecrf:<key>` Alias, or, in files of earlier
 * versions, the attribute of our namespace (the parser drops the prefix).
 */
export function ecrfValue(node: XmlNode | undefined, key: string): string | undefined {
  const alias = list(node, 'Alias').find((a) => attr(a, 'Context') === `ecrf:${key}`);
  return alias ? (attr(alias, 'Name') ?? '') : attr(node, key);
}

/** The text content of an element that may also carry attributes. */
export const content = (node: unknown): string =>
  node === undefined || node === null
    ? ''
    : typeof node === 'object'
      ? String((node as XmlNode)['#text'] ?? '')
      : String(node);

export interface PickedText {
  /** Chinese when there is Chinese, else English, else the untagged or first text. */
  text: string;
  /** The English text when the chosen text is Chinese and there is English too: an alternate title. */
  english?: string | undefined;
  /** Languages of the other texts, which were not used (`未标注` for untagged ones). */
  dropped: string[];
}

/**
 * One text out of an element's TranslatedTexts (Question, Decode, Symbol). With `alternate`, English
 * next to Chinese is kept apart as an alternate (item titles); otherwise it counts as dropped.
 */
export function pickText(node: unknown, alternate = false): PickedText {
  if (node === undefined || node === null) return { text: '', dropped: [] };
  if (typeof node !== 'object') return { text: String(node), dropped: [] };
  const texts = list(node as XmlNode, 'TranslatedText').map((t) => ({
    lang: typeof t === 'object' ? attr(t, 'lang') : undefined,
    value: content(t),
  }));
  if (texts.length === 0) return { text: content(node), dropped: [] };
  const zh = texts.find((t) => /^zh([-_]|$)/i.test(t.lang ?? ''));
  const en = texts.find((t) => /^en([-_]|$)/i.test(t.lang ?? ''));
  const chosen = zh ?? en ?? texts.find((t) => t.lang === undefined) ?? texts[0]!;
  const english = alternate && zh && en ? en : undefined;
  const dropped = texts.filter((t) => t !== chosen && t !== english).map((t) => t.lang ?? '未标注');
  return { text: chosen.value, english: english?.value, dropped };
}
