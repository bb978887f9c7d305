import { Typography } from 'antd';
import { SIGNATURE_TEXT, signatureText, signaturesInOrder, type Signature } from '@ecrf/core';

/**
 * The casebook's signatures where its record is read (Part 11 §11.50): each one's signer, date and time in the
 * study's zone and meaning, oldest first, in the words core gives the printed casebook too. A voided one reads
 * 签名已失效（数据修改于 …） and keeps what it said; why it was voided shows on hover.
 */
export function SignatureLines({ signatures, timeZone }: { signatures: readonly Signature[]; timeZone: string }) {
  if (signatures.length === 0) return null;
  return (
    <section className="crf-overview-signatures" aria-label={SIGNATURE_TEXT.heading}>
      <h3 className="crf-overview-form-title">{SIGNATURE_TEXT.heading}</h3>
      <ul className="crf-overview-signature-list" style={{ listStyle: 'none', paddingLeft: 0 }}>
        {signaturesInOrder(signatures).map((s) => (
          <li key={s.id} className={s.valid ? 'crf-signature-valid' : 'crf-signature-void'}>
            <Typography.Text type={s.valid ? undefined : 'danger'} title={s.invalidatedReason ?? undefined}>
              {signatureText(s, timeZone)}
            </Typography.Text>
          </li>
        ))}
      </ul>
    </section>
  );
}
