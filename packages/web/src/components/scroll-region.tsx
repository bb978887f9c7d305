import type { CSSProperties, ReactNode, Ref } from 'react';

/**
 * A box that scrolls its own content and that a keyboard can reach: with no button or link inside (an audit
 * table, a read-only casebook), arrow keys could not scroll it otherwise, and axe reports it
 * (scrollable-region-focusable). Named by `label` for screen readers.
 */
export function ScrollRegion({
  label,
  className,
  style,
  ref,
  children,
}: {
  label: string;
  className?: string;
  style?: CSSProperties;
  ref?: Ref<HTMLDivElement>;
  children: ReactNode;
}) {
  return (
    <div ref={ref} className={className} tabIndex={0} role="region" aria-label={label} style={style}>
      {children}
    </div>
  );
}
