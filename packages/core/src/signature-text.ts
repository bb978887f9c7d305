import { DEFAULT_TIME_ZONE, formatDateParts, wallClock } from './crf/date-time.js';

/**
 * How a casebook's electronic signature reads wherever a person reads the record: the printed casebook (Word and
 * PDF), the overview and the print preview. 21 CFR Part 11 §11.50 asks every human-readable form of a signed record
 * to show the signer's printed name, the date and time of signing and the meaning of the signature; a signature
 * voided by a later change keeps those three and says, first, that it no longer stands and since when.
 *
 *   研究者签名：张医生 2026-12-07 14:32（确认数据真实准确）
 *   签名已失效（数据修改于 2026-12-07 15:01）原研究者签名：张医生 2026-12-07 14:32（确认数据真实准确）
 *
 * Times are the study's wall clock (studies.timeZone), to the minute, never the reader's own zone.
 */
export const SIGNATURE_TEXT = {
  /** The casebook is signed by the investigator (PUT /api/v1/business/subject/sign). */
  label: '研究者签名',
  void: '签名已失效',
  /** The heading over the signature lines where a page groups them. */
  heading: '电子签名',
} as const;

/** A signature as the API answers it (signatureSchema) or as the server reads it (Date instants). */
export interface SignatureForText {
  /** The signature's row id, when known: orders signatures given in the same millisecond. */
  id?: number;
  signer: string;
  meaning: string;
  signedAt: string | Date;
  invalidatedAt: string | Date | null;
}

/** An instant as the study's wall clock to the minute: 2026-12-07 14:32. */
export function signatureTime(instant: string | Date, timeZone: string = DEFAULT_TIME_ZONE): string {
  const p = wallClock(new Date(instant), timeZone);
  return `${formatDateParts(p)} ${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

/** One signature's line: valid, or voided with when the data changed and what the signature said. */
export function signatureText(signature: SignatureForText, timeZone: string = DEFAULT_TIME_ZONE): string {
  const meaning = signature.meaning.trim();
  const signed = `${SIGNATURE_TEXT.label}：${signature.signer} ${signatureTime(signature.signedAt, timeZone)}${
    meaning ? `（${meaning}）` : ''
  }`;
  if (signature.invalidatedAt === null) return signed;
  return `${SIGNATURE_TEXT.void}（数据修改于 ${signatureTime(signature.invalidatedAt, timeZone)}）原${signed}`;
}

/** Whether a signature still stands (no later change voided it). */
export const signatureValid = (signature: Pick<SignatureForText, 'invalidatedAt'>) => signature.invalidatedAt === null;

/**
 * Every signature of a casebook in the order it was given, oldest first (the API lists the newest first), so a
 * printed page reads as the record's history does.
 */
export function signaturesInOrder<T extends SignatureForText>(signatures: readonly T[]): T[] {
  return [...signatures].sort(
    (a, b) => new Date(a.signedAt).getTime() - new Date(b.signedAt).getTime() || (a.id ?? 0) - (b.id ?? 0),
  );
}

/** The lines of a casebook's signatures, oldest first. */
export function signatureLines(
  signatures: readonly SignatureForText[],
  timeZone: string = DEFAULT_TIME_ZONE,
): string[] {
  return signaturesInOrder(signatures).map((s) => signatureText(s, timeZone));
}
