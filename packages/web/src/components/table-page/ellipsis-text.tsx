import { useRef, useState, type ReactNode } from 'react';
import { Tooltip } from 'antd';

/** True when the cell holding `element` cuts its content (antd's ellipsis cells hide what overflows). */
export function isCut(element: HTMLElement | null): boolean {
  const cell = element?.closest('td, th') ?? element;
  return Boolean(cell && cell.scrollWidth > cell.clientWidth + 1);
}

/**
 * The content of an ellipsis cell, with the whole text in a tooltip, shown only when the cell really cuts it
 * (a tooltip repeating what is already readable is noise).
 */
export function EllipsisText({ text, children }: { text: string; children?: ReactNode }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [open, setOpen] = useState(false);
  return (
    <Tooltip
      title={text}
      placement="topLeft"
      open={open}
      onOpenChange={(next) => setOpen(next && text !== '' && isCut(ref.current))}
    >
      <span ref={ref}>{children ?? text}</span>
    </Tooltip>
  );
}
