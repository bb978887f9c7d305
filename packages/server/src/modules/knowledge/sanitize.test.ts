import { describe, expect, it } from 'vitest';
import { articleText, contentImageKeys, sanitizeArticleHtml } from './sanitize.js';

/**
 * Vectors from the OWASP XSS Filter Evasion Cheat Sheet (and the HTML5 Security Cheatsheet's commonly cited
 * entries): each must come out inert, that is with only allow-listed tags and attributes, links only to
 * http(s)/mailto, pictures only from the content-image path.
 */
const VECTORS = [
  `<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>`,
  `javascript:/*--></title></style></textarea></script></xmp><svg/onload='+/"/+/onmouseover=1/+/[*/[]/+alert(1)//'>`,
  `<IMG SRC="javascript:alert('XSS');">`,
  `<IMG SRC=javascript:alert('XSS')>`,
  `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
  `<IMG SRC=javascript:alert(&quot;XSS&quot;)>`,
  '<IMG SRC=`javascript:alert("RSnake says, \'XSS\'")`>',
  `<a onmouseover="alert(document.cookie)">xxs link</a>`,
  `<a onmouseover=alert(document.cookie)>xxs link</a>`,
  `<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>`,
  `<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
  `<IMG SRC=# onmouseover="alert('xxs')">`,
  `<IMG SRC= onmouseover="alert('xxs')">`,
  `<IMG onmouseover="alert('xxs')">`,
  `<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
  `<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">`,
  `<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
  `<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>`,
  `<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
  `<IMG SRC="jav\tascript:alert('XSS');">`,
  `<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
  `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
  `<IMG SRC="jav&#x0D;ascript:alert('XSS');">`,
  `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
  `<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`,
  `<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^\`=alert("XSS")>`,
  `<SCRIPT/SRC="http://xss.rocks/xss.js"></SCRIPT>`,
  `<<SCRIPT>alert("XSS");//\\<</SCRIPT>`,
  `<SCRIPT SRC=http://xss.rocks/xss.js?< B >`,
  `<SCRIPT SRC=//xss.rocks/.j>`,
  `<IMG SRC="\`<javascript:alert>\`('XSS')"`,
  `<iframe src=http://xss.rocks/scriptlet.html <`,
  `\\";alert('XSS');//`,
  `</TITLE><SCRIPT>alert("XSS");</SCRIPT>`,
  `<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`,
  `<BODY BACKGROUND="javascript:alert('XSS')">`,
  `<IMG DYNSRC="javascript:alert('XSS')">`,
  `<IMG LOWSRC="javascript:alert('XSS')">`,
  `<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
  `<IMG SRC='vbscript:msgbox("XSS")'>`,
  `<svg/onload=alert('XSS')>`,
  `<BODY ONLOAD=alert('XSS')>`,
  `<BGSOUND SRC="javascript:alert('XSS');">`,
  `<BR SIZE="&{alert('XSS')}">`,
  `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
  `<STYLE>@import'http://xss.rocks/xss.css';</STYLE>`,
  `<META HTTP-EQUIV="Link" Content="<http://xss.rocks/xss.css>; REL=stylesheet">`,
  `<STYLE>BODY{-moz-binding:url("http://xss.rocks/xssmoz.xml#xss")}</STYLE>`,
  `<IMG STYLE="xss:expr/*XSS*/ession(alert('XSS'))">`,
  `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
  `<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">`,
  `<IFRAME SRC="javascript:alert('XSS');"></IFRAME>`,
  `<IFRAME SRC=# onmouseover="alert(document.cookie)"></IFRAME>`,
  `<FRAMESET><FRAME SRC="javascript:alert('XSS');"></FRAMESET>`,
  `<TABLE BACKGROUND="javascript:alert('XSS')">`,
  `<TABLE><TD BACKGROUND="javascript:alert('XSS')">`,
  `<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
  `<DIV STYLE="width: expression(alert('XSS'));">`,
  `<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->`,
  `<BASE HREF="javascript:alert('XSS');//">`,
  `<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`,
  `<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv MjAwMC9zdmciIHhtbG5zOnhsaW5rPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5L3hs aW5rIiB2ZXJzaW9uPSIxLjAiIHg9IjAiIHk9IjAiIHdpZHRoPSIxOTQiIGhlaWdodD0iMjAw IiBpZD0ieHNzIj48c2NyaXB0IHR5cGU9InRleHQvZWNtYXNjcmlwdCI+YWxlcnQoIlh TUyIpOzwvc2NyaXB0Pjwvc3ZnPg==" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
  `<a href="javascript:alert(1)">x</a>`,
  `<a href="JaVaScRiPt:alert(1)">x</a>`,
  `<a href="jav&#x09;ascript:alert(1)">x</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
  `<a href="//evil.example/x">x</a>`,
  `<a href="vbscript:msgbox(1)">x</a>`,
  `<form action="javascript:alert(1)"><button>x</button></form>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
  `<img src="https://evil.example/track.gif">`,
  `<img src="/api/ignore/content/image/0123456789abcdef0123456789abcdef" onerror="alert(1)">`,
  `<p style="position:fixed;top:0">overlay</p>`,
  `<template><script>alert(1)</script></template>`,
  `<details open ontoggle=alert(1)>`,
  `<video><source onerror="alert(1)">`,
  `<xmp><img src=x onerror=alert(1)></xmp>`,
];

const ALLOWED_TAGS = new Set([
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
]);
const ALLOWED_ATTRS: Record<string, Set<string>> = {
  a: new Set(['href', 'title', 'rel', 'target']),
  img: new Set(['src', 'alt', 'title']),
};

/** Every tag and attribute in the output, read back with a tolerant tag pattern. */
function inert(html: string): string[] {
  const problems: string[] = [];
  for (const m of html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const tag = m[1]!.toLowerCase();
    if (!ALLOWED_TAGS.has(tag)) problems.push(`tag ${tag}`);
    for (const a of m[2]!.matchAll(/([^\s=/"']+)(?:="([^"]*)")?/g)) {
      const name = a[1]!.toLowerCase();
      if (!ALLOWED_ATTRS[tag]?.has(name)) problems.push(`attribute ${tag}.${name}`);
      const value = (a[2] ?? '')
        .replace(/&#x?[0-9a-f]+;?/gi, '')
        .replace(/\s/g, '')
        .toLowerCase();
      if (name === 'href' && !/^(https?:|mailto:)/.test(value)) problems.push(`href ${value}`);
      if (name === 'src' && !/^\/api\/ignore\/content\/image\/[0-9a-f]{32}$/.test(value)) problems.push(`src ${value}`);
    }
  }
  return problems;
}

describe('article HTML sanitiser (allow-list, on the server)', () => {
  it.each(VECTORS.map((v, i) => [i + 1, v] as const))('KNOW-04: OWASP vector %i stays inert', (_n, vector) => {
    const out = sanitizeArticleHtml(vector);
    expect(inert(out), out).toEqual([]);
    // Inside tags (text such as "javascript:" stays as escaped, harmless text).
    const tags = (out.match(/<[^>]*>/g) ?? []).join('');
    expect(tags).not.toMatch(/javascript:|vbscript:|<script|onerror|onload|onmouseover|expression\(/i);
    // Sanitising again changes nothing: what is stored is what is shown.
    expect(sanitizeArticleHtml(out)).toBe(out);
  });

  it('KNOW-04: keeps what the editor writes: headings, emphasis, lists, quotes, links, content pictures', () => {
    const html =
      '<h2>术后护理</h2><p>请<strong>按时</strong>服药，<em>避免</em>久坐。</p><ul><li>一</li></ul><ol><li>二</li></ol>' +
      '<blockquote><p>引用</p></blockquote><p><a href="https://www.example.org/a">链接</a></p>' +
      '<img src="/api/ignore/content/image/0123456789abcdef0123456789abcdef" alt="图">';
    const out = sanitizeArticleHtml(html);
    expect(out).toContain('<h2>术后护理</h2>');
    expect(out).toContain('<strong>按时</strong>');
    expect(out).toContain(
      '<a href="https://www.example.org/a" rel="noopener noreferrer nofollow" target="_blank">链接</a>',
    );
    expect(out).toContain('<img src="/api/ignore/content/image/0123456789abcdef0123456789abcdef" alt="图" />');
    expect(contentImageKeys(out)).toEqual(['0123456789abcdef0123456789abcdef']);
    // The summary's plain text keeps blocks apart.
    expect(articleText('<p>先侧身坐起</p><ul><li>再站立</li><li>再行走</li></ul>')).toBe('先侧身坐起 再站立 再行走');
  });
});
