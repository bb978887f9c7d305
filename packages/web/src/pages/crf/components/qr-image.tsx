import { useEffect, useState } from 'react';
import QRCode from 'qrcode';

/** A QR code of `text` drawn in the browser (forms §9: a generated QR defaults to size 30). */
export function QrImage({
  text,
  size = 30,
  margin = 1,
  alt,
  className,
}: {
  text: string;
  size?: number;
  margin?: number;
  alt: string;
  className?: string;
}) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(text, { width: size * 2, margin, errorCorrectionLevel: 'M' })
      .then((url) => {
        if (live) setSrc(url);
      })
      .catch(() => {
        // A text too long for a QR code leaves the image empty; nothing else depends on it.
        if (live) setSrc(null);
      });
    return () => {
      live = false;
    };
  }, [text, size, margin]);
  if (!src) {
    return (
      <span className={className} style={{ display: 'inline-block', width: size, height: size }} aria-label={alt} />
    );
  }
  return <img src={src} width={size} height={size} alt={alt} className={className} />;
}
