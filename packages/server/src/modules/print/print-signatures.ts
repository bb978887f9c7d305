import {
  SIGNATURE_TEXT,
  signatureLines,
  signatureText,
  signatureTime,
  signatureValid,
  signaturesInOrder,
} from '@ecrf/core';
import type PizZip from 'pizzip';

/** A signature as listSignatures answers it (instants as Dates). */
interface SignatureRow {
  id: number;
  signer: string;
  meaning: string;
  signedAt: Date | string;
  invalidatedAt: Date | string | null;
}

/**
 * The tags a print template may place the casebook's signatures with: `{signatures}` (every line, one per line) or
 * a loop `{#signatureList}{text}{/signatureList}` (also signer, signedAt, meaning, valid, invalidatedAt as text).
 */
export function signatureTags(rows: readonly SignatureRow[], timeZone: string) {
  return {
    signatures: signatureLines(rows, timeZone).join('\n'),
    signatureList: signaturesInOrder(rows).map((s) => ({
      text: signatureText(s, timeZone),
      signer: s.signer,
      meaning: s.meaning,
      signedAt: signatureTime(s.signedAt, timeZone),
      valid: signatureValid(s),
      invalidatedAt: s.invalidatedAt === null ? '' : signatureTime(s.invalidatedAt, timeZone),
    })),
  };
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text a part of the document shows (runs joined, entities read), to find whether a line is already printed. */
function shownText(xml: string): string {
  return xml
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

const paragraph = (text: string, bold = false) =>
  `<w:p><w:r>${bold ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;

/**
 * Where paragraphs go at the end of the body: before the body's own section properties (its last child, which may
 * itself hold a <w:sectPr> inside <w:sectPrChange>), else before </w:body>.
 */
function endOfBody(xml: string): number {
  const bodyEnd = xml.lastIndexOf('</w:body>');
  if (bodyEnd < 0) return -1;
  if (!xml.slice(0, bodyEnd).trimEnd().endsWith('</w:sectPr>')) return bodyEnd;
  let depth = 0;
  let lastTopLevel = bodyEnd;
  for (const m of xml.slice(0, bodyEnd).matchAll(/<w:sectPr(?=[\s>/])[^>]*?(\/?)>|<\/w:sectPr>/g)) {
    if (m[0].startsWith('</')) depth -= 1;
    else if (m[1] !== '/') {
      if (depth === 0) lastTopLevel = m.index;
      depth += 1;
    }
  }
  return lastTopLevel;
}

const PRINTED_PARTS = /^word\/(document|header\d*|footer\d*)\.xml$/;

/**
 * Part 11 §11.50: every printed form of a signed casebook shows its signatures. A template that placed them with the
 * tags above is left as it is; otherwise the lines are added as paragraphs at the end of the document, under the
 * heading 电子签名. A casebook never signed prints as before.
 */
export function appendSignatures(zip: PizZip, rows: readonly SignatureRow[], timeZone: string): void {
  const lines = signatureLines(rows, timeZone);
  if (lines.length === 0) return;
  const shown = Object.keys(zip.files)
    .filter((name) => PRINTED_PARTS.test(name))
    .map((name) => shownText(zip.file(name)!.asText()))
    .join('\n');
  if (lines.every((line) => shown.includes(line))) return;
  const document = zip.file('word/document.xml');
  if (!document) return;
  const xml = document.asText();
  const at = endOfBody(xml);
  if (at < 0) return;
  const added = [paragraph(SIGNATURE_TEXT.heading, true), ...lines.map((line) => paragraph(line))].join('');
  zip.file('word/document.xml', xml.slice(0, at) + added + xml.slice(at));
}
