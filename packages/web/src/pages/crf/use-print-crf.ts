import { useState } from 'react';
import { App } from 'antd';
import { crfRecordApi } from '../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';
import { saveBlob } from '../../utils/download';
import { printCrf, printInHiddenFrame } from './print';

const t = CRF_PAGE_TEXT;

export interface PrintCrfOptions {
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
  /** The Word document's name when it is saved rather than printed. */
  fileName: string;
  /** A form without a print template is previewed in the overview dialog instead. */
  openPreview: () => void;
}

/** The top bar's 打印 (forms §4 "Print", print.ts): busy while the document is made. */
export function usePrintCrf({ subjectRecordId, crfId, crfDataRecordId, fileName, openPreview }: PrintCrfOptions) {
  const { message } = App.useApp();
  const [printing, setPrinting] = useState(false);

  const print = async () => {
    setPrinting(true);
    try {
      const outcome = await printCrf(
        { subjectRecordId, crfId, crfDataRecordId },
        {
          hasTemplate: (id) => crfRecordApi.hasPrintTemplate(id).then((res) => res.data),
          document: (params, format) => crfRecordApi.printWord({ ...params, format }).then((res) => res.data),
          openPreview,
          printFrame: (blob) => printInHiddenFrame(blob),
          save: (blob) => saveBlob(blob, fileName),
        },
      );
      if (outcome === 'saved') void message.info(t.printWordDownloaded);
    } catch {
      // The request wrapper has shown why.
    } finally {
      setPrinting(false);
    }
  };

  return { printing, print };
}
