import { useState } from 'react';

/**
 * The row a page's dialog is open for (null: closed; 'new' among the values for an add dialog), and the dialog's
 * closing, which refreshes the page's list when the dialog saved.
 */
export function useDialogRow<T>(refresh: () => unknown) {
  const [row, setRow] = useState<T | null>(null);
  const close = (saved: boolean) => {
    setRow(null);
    if (saved) void refresh();
  };
  return [row, setRow, close] as const;
}
