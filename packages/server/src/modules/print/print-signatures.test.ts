import PizZip from 'pizzip';
import { describe, expect, it } from 'vitest';
import { appendSignatures, signatureTags } from './print-signatures.js';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const sectPr =
  '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:sectPrChange w:id="1"><w:sectPr><w:pgSz w:w="1"/></w:sectPr></w:sectPrChange></w:sectPr>';

const docWith = (body: string) => {
  const zip = new PizZip();
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`);
  return zip;
};

const signed = {
  id: 1,
  signer: 'A&B <医生>',
  meaning: '确认数据真实准确',
  signedAt: new Date('2026-12-07T06:32:00Z'),
  invalidatedAt: null,
};
const voided = { ...signed, id: 2, signer: '李医生', invalidatedAt: new Date('2026-12-07T07:01:00Z') };

describe('signature lines in a printed Word document', () => {
  it('go at the end of the body, before its section properties (even one holding a sectPrChange), escaped', () => {
    const zip = docWith(`<w:p><w:r><w:t>表单</w:t></w:r></w:p>${sectPr}`);
    appendSignatures(zip, [voided, signed], 'Asia/Shanghai');
    const xml = zip.file('word/document.xml')!.asText();
    expect(xml.endsWith(`${sectPr}</w:body></w:document>`)).toBe(true);
    const heading = xml.indexOf('电子签名');
    expect(heading).toBeGreaterThan(xml.indexOf('表单'));
    expect(xml).toContain('研究者签名：A&amp;B &lt;医生&gt; 2026-12-07 14:32（确认数据真实准确）');
    expect(xml).toContain('签名已失效（数据修改于 2026-12-07 15:01）原研究者签名：李医生 2026-12-07 14:32');
  });

  it('go before </w:body> when the body has no section properties; nothing is added for a casebook never signed', () => {
    const zip = docWith('<w:p><w:r><w:t>表单</w:t></w:r></w:p>');
    appendSignatures(zip, [], 'Asia/Shanghai');
    expect(zip.file('word/document.xml')!.asText()).not.toContain('电子签名');
    appendSignatures(zip, [signed], 'Asia/Shanghai');
    expect(zip.file('word/document.xml')!.asText()).toMatch(/研究者签名：[^<]*<\/w:t><\/w:r><\/w:p><\/w:body>/);
  });

  it('the template’s tags answer the lines oldest first, and each signature’s parts', () => {
    const tags = signatureTags([voided, signed], 'Asia/Shanghai');
    expect(tags.signatures.split('\n')).toHaveLength(2);
    expect(tags.signatureList[1]).toEqual({
      text: expect.stringMatching(/^签名已失效/),
      signer: '李医生',
      meaning: '确认数据真实准确',
      signedAt: '2026-12-07 14:32',
      valid: false,
      invalidatedAt: '2026-12-07 15:01',
    });
  });
});
