import { describe, expect, it } from 'vitest';
import { safeHref } from './safe-href';

describe('safeHref: only web, mail and relative addresses may become links', () => {
  it.each([
    ['https://example.org/icf.pdf', 'https://example.org/icf.pdf'],
    ['HTTP://EXAMPLE.ORG', 'HTTP://EXAMPLE.ORG'],
    ['mailto:crc@example.org', 'mailto:crc@example.org'],
    ['/docs/icf.pdf', '/docs/icf.pdf'],
    ['docs/icf.pdf', 'docs/icf.pdf'],
    ['?page=2', '?page=2'],
    ['#top', '#top'],
    ['//cdn.example.org/a.pdf', '//cdn.example.org/a.pdf'],
    ['  https://example.org/a  ', 'https://example.org/a'],
    [
      '/api/v1/fileupload/downfile?fileKey=0123456789abcdef0123456789abcdef',
      '/api/v1/fileupload/downfile?fileKey=0123456789abcdef0123456789abcdef',
    ],
    ['https://example.org/?a=1&amp;b=2', 'https://example.org/?a=1&amp;b=2'],
    // What the browser will read: tabs and newlines inside are dropped, as the URL parser does.
    ['https://exa\tmple.org/', 'https://example.org/'],
  ])('%j opens as %j', (input, expected) => {
    expect(safeHref(input)).toBe(expected);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'java\rscript:alert(1)',
    'jav\u0009ascript:alert(1)',
    '\u0000javascript:alert(1)',
    '\u0001\u0002 javascript:alert(1)',
    ' \t\n javascript:alert(1)',
    'javascript\u0000:alert(1)',
    'javascript\u007f:alert(1)',
    'javascript:alert(1)//x.png',
    'vbscript:msgbox(1)',
    'VBScript:msgbox(1)',
    'vb\tscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'DATA:text/html,x',
    'da\tta:text/html,x',
    'data:image/svg+xml,<svg onload=alert(1)>',
    'javascript&colon;alert(1)',
    'javascript&#58;alert(1)',
    'javascript&#x3a;alert(1)',
    'javascript&#x3A alert(1)',
    '&#106;avascript:alert(1)',
    '&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)',
    'java&Tab;script:alert(1)',
    'java&NewLine;script:alert(1)',
    'file:///etc/passwd',
    'blob:https://example.org/uuid',
    'ftp://example.org/',
    '',
    '   ',
    '\t\n',
  ])('%j is refused', (input) => {
    expect(safeHref(input)).toBeUndefined();
  });

  it('refuses what is not text', () => {
    expect(safeHref(undefined)).toBeUndefined();
    expect(safeHref(null)).toBeUndefined();
  });
});
