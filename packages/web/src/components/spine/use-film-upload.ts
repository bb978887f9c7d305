import { useState } from 'react';
import { useCrfUi } from '../../crf/crf-ui';
import { useSpineImageReceiver } from './send-image';

/**
 * A spine widget's film upload: `take` stores and reads the file; while it runs the widget is busy, and a failure
 * is told (its own words, else `failedText`). A frame sent from the imaging viewer is taken like a file chosen in
 * the upload area, unless the item is read-only.
 */
export function useFilmUpload(
  name: string,
  disabled: boolean,
  failedText: string,
  take: (file: File) => Promise<void>,
) {
  const ui = useCrfUi();
  const [busy, setBusy] = useState(false);
  const upload = async (file: File) => {
    setBusy(true);
    try {
      await take(file);
    } catch (error) {
      void ui.message.error(error instanceof Error && error.message ? error.message : failedText);
    } finally {
      setBusy(false);
    }
  };
  useSpineImageReceiver(name, (file) => {
    if (!disabled) void upload(file);
  });
  return { busy, upload };
}
