import type sanitizeHtmlModule from 'sanitize-html';
import { loadCommonJs } from '../../shared/load-common-js.js';

/** sanitize-html and its parsers (≈ 0.1 s of a start) load on the first article written, not at start-up. */
let loaded: typeof sanitizeHtmlModule | undefined;
const sanitizeHtml = (html: string, options: sanitizeHtmlModule.IOptions) =>
  (loaded ??= loadCommonJs('sanitize-html') as typeof sanitizeHtmlModule)(html, options);

/** Where the pictures of patient-facing content are served (public; knowledge/content-image routes). */
export const CONTENT_IMAGE_PATH = '/api/ignore/content/image/';

/**
 * The allow-list for article HTML, written for what the editor produces (paragraphs, headings, lists,
 * emphasis, quotes, links, pictures): no script, no style, no event handler, no frame, no form. Links may
 * only go to http(s) and mailto; pictures only come from this server's content-image path, so an article
 * can't make a reader's browser call another host. Run on every save, on the server, whatever the editor did.
 */
const OPTIONS: sanitizeHtmlModule.IOptions = {
  allowedTags: [
    'p',
    'br',
    'h1',
    'h2',
    'h3',
    'h4',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'hr',
    'code',
    'pre',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: [] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // The text of dropped script-like elements goes too, not only their tags.
  nonTextTags: [
    'script',
    'style',
    'textarea',
    'option',
    'noscript',
    'title',
    'iframe',
    'object',
    'embed',
    'svg',
    'math',
  ],
  exclusiveFilter: (frame) => frame.tag === 'img' && !isContentImage(frame.attribs.src),
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: 'noopener noreferrer nofollow', target: '_blank' },
    }),
  },
};
// rel and target are set by the transform above, never taken from the input.
OPTIONS.allowedAttributes = { ...OPTIONS.allowedAttributes, a: ['href', 'title', 'rel', 'target'] };

function isContentImage(src: string | undefined): boolean {
  return typeof src === 'string' && new RegExp(`^${CONTENT_IMAGE_PATH}[0-9a-f]{32}$`).test(src);
}

export function sanitizeArticleHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/** The content-image keys an article's HTML shows. */
export function contentImageKeys(html: string): string[] {
  const keys = new Set<string>();
  for (const m of html.matchAll(/\/api\/ignore\/content\/image\/([0-9a-f]{32})/g)) keys.add(m[1]!);
  return [...keys];
}

/** Plain text of an article (search, summaries). */
export function articleText(html: string): string {
  // A space where a block ends, so paragraphs and list items don't run together in a summary.
  const spaced = html.replace(/<\/(p|li|h[1-4]|blockquote|pre)>|<br\s*\/?>/gi, '$& ');
  return sanitizeHtml(spaced, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();
}
