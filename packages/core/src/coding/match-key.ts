/**
 * The folding both sides of a match go through (the dictionary's names when loaded, the verbatim when coded): NFKC
 * turns full-width letters and digits into their ASCII forms, case is dropped, punctuation (ASCII and full-width
 * alike) becomes a space, and runs of spaces one space. "Headache", "ＨＥＡＤＡＣＨＥ" and "headache." are one key;
 * "头痛" stays "头痛". Pure and deterministic: the key is stored with each term, so changing this needs a reload.
 */
export function matchKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}
