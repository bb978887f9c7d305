import type { ReactNode } from 'react';

/** A titled block of the configuration page. */
export function Section({
  title,
  hint,
  extra,
  children,
}: {
  title: string;
  hint?: string;
  extra?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="study-section" aria-label={title}>
      <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 12 }}>
        <h3 className="study-section-title">{title}</h3>
        {extra}
      </div>
      {hint && <p className="study-section-hint">{hint}</p>}
      {children}
    </section>
  );
}
