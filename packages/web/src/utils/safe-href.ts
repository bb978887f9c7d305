/** Schemes a link from a form definition or a stored value may open. */
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

// What the URL parser ignores (WHATWG URL: leading and trailing C0 controls and spaces are
// stripped, ASCII tab and newline removed anywhere), so `java\tscript:` is `javascript:` to it.
// eslint-disable-next-line no-control-regex
const EDGE_CONTROLS = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const TAB_OR_NEWLINE = /[\t\n\r]/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

const NAMED_ENTITIES: Record<string, string> = { colon: ':', tab: '\t', newline: '\n', sol: '/', lpar: '(', rpar: ')' };

/** Character references, in case the text ever reaches an HTML parser on its way to an href. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

function asParsed(text: string): string {
  return text.replace(EDGE_CONTROLS, '').replace(TAB_OR_NEWLINE, '');
}

/** The scheme the browser would see, lower-case, or null for a relative address. */
function schemeOf(text: string): string | null {
  return SCHEME.exec(asParsed(text))?.[1]?.toLowerCase() ?? null;
}

/**
 * An address that is safe to put in an href: web and mail links and relative paths; null for
 * anything else (javascript:, vbscript:, data:, file: …), however it is disguised with
 * controls, whitespace or character references. The answer is the address as the browser
 * will read it, so what was checked is exactly what opens.
 */
export function safeHref(url: string | null | undefined): string | undefined {
  if (typeof url !== 'string') return undefined;
  const text = asParsed(url);
  if (!text) return undefined;
  // Any other control character has no business in an address and may confuse a parser.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return undefined;
  for (const form of [text, decodeEntities(text)]) {
    const scheme = schemeOf(form);
    if (scheme !== null && !ALLOWED_SCHEMES.has(scheme)) return undefined;
  }
  return text;
}
