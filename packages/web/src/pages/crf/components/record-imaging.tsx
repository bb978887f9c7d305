import { App } from 'antd';
import type { CrfDefinition } from '@ecrf/core';
import { ImagingViewer } from '../../../components/imaging/imaging-viewer';
import { externalViewerUrl, recordFiles } from '../../../components/imaging/record-files';
import { VIEWER_T } from '../../../components/imaging/texts';
import { sendSpineImage } from '../../../components/spine/send-image';
import { useFileNames } from '../../../stores/file-names.store';
import type { FormItem } from '../crf-values';

export interface RecordImagingProps {
  open: boolean;
  onClose: () => void;
  definition: CrfDefinition | undefined;
  savedValues: Readonly<Record<string, unknown>>;
  /** Every item of the form, shown or not: the spine items a frame may be sent to are among them. */
  allItems: readonly FormItem[];
  /** Whether the open record may be changed: only then does a frame go to a spine item. */
  canEdit: boolean;
  identificationCode: string;
}

/** 影像 on the CRF page: the record's images and DICOM files, a frame of which may be sent to a spine item. */
export function RecordImaging({
  open,
  onClose,
  definition,
  savedValues,
  allItems,
  canEdit,
  identificationCode,
}: RecordImagingProps) {
  const { message } = App.useApp();
  const fileNames = useFileNames();
  return (
    <ImagingViewer
      open={open}
      onClose={onClose}
      files={open && definition ? recordFiles(definition.children, savedValues, fileNames) : []}
      spineItems={allItems
        .filter((i) => i.node.type === 'spineCobb' || i.node.type === 'spineMeasure')
        .map((i) => ({ name: i.name, title: i.title }))}
      onSendToSpine={
        canEdit
          ? (item, image) => {
              // The widget takes the frame as if chosen in its upload area: stored, then shown ready to measure.
              if (sendSpineImage(item, image)) onClose();
              else void message.warning(VIEWER_T.spineItemHidden);
            }
          : undefined
      }
      externalUrl={externalViewerUrl(import.meta.env.VITE_DICOM_VIEWER_URL, identificationCode)}
    />
  );
}
