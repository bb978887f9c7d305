import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Modal, Spin } from 'antd';
import { FileImageOutlined, WarningOutlined } from '@ant-design/icons';
import { crfRecordApi } from '../../../api/crf.api';
import { queryKeys } from '../../../api/query-keys';
import { recognitionApi, type RecognitionSource } from '../../../api/recognition.api';
import { RECOGNITION_TEXT } from '../../../locales/recognition.zh-CN';
import { formatDate } from '../../../utils/format-date';

const t = RECOGNITION_TEXT;

/**
 * A source in the object store (external mode): shown from its address, whose read path (under the file cookie)
 * checks the viewer and answers with a short-lived address on the store.
 */
function ObjectSource({ source, url }: { source: RecognitionSource; url: string }) {
  return /\.pdf$/i.test(source.fileName) ? (
    <a href={url} target="_blank" rel="noreferrer">
      {source.fileName}
    </a>
  ) : (
    <img src={url} alt={`${t.sources} ${source.fileName}`} />
  );
}

/** A source image: from the object store at its address, else through the download call. */
function SourceImage({ source }: { source: RecognitionSource }) {
  return source.url ? <ObjectSource source={source} url={source.url} /> : <DownloadedSource source={source} />;
}

/** A source image, fetched with the session (the download call needs the token) and shown from memory. */
function DownloadedSource({ source }: { source: RecognitionSource }) {
  const [src, setSrc] = useState<{ url: string; pdf: boolean } | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    crfRecordApi
      .downloadFile(source.fileKey)
      .then((res) => {
        url = URL.createObjectURL(res.data);
        if (live) setSrc({ url, pdf: res.data.type === 'application/pdf' });
      })
      .catch((error: unknown) => {
        console.error(t.sourceFailed, error);
        if (live) setFailed(true);
      });
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [source.fileKey]);
  if (failed) {
    return (
      <span className="recognition-source-failed" role="alert">
        <WarningOutlined /> {t.sourceFailed}
      </span>
    );
  }
  if (!src) return <Spin size="small" />;
  return src.pdf ? (
    <a href={src.url} download={source.fileName}>
      {source.fileName}
    </a>
  ) : (
    <img src={src.url} alt={`${t.sources} ${source.fileName}`} />
  );
}

/**
 * 识别原图: the images a record's values were recognised from, so a monitor checks them against the source (SDV).
 * Shown only when the record has some.
 */
export function RecognitionSources(props: {
  studyId: number;
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
}) {
  const { studyId, subjectRecordId, crfId, crfDataRecordId } = props;
  const [open, setOpen] = useState(false);
  const query = useQuery({
    queryKey: queryKeys.crfRecord.recognitionSources(subjectRecordId, crfId),
    queryFn: () => recognitionApi.sources(studyId, subjectRecordId, crfId).then((res) => res.data),
    enabled: crfDataRecordId !== null && studyId > 0,
  });
  const sources = (query.data ?? []).filter((s) => s.crfDataRecordId === crfDataRecordId);
  if (crfDataRecordId === null || sources.length === 0) return null;
  return (
    <>
      <Button size="small" type="link" icon={<FileImageOutlined />} onClick={() => setOpen(true)}>
        {t.sourcesButton(sources.length)}
      </Button>
      <Modal
        open={open}
        title={t.sources}
        width={900}
        footer={null}
        onCancel={() => setOpen(false)}
        destroyOnHidden
        className="recognition-sources"
      >
        {sources.map((source) => (
          <figure key={source.recognitionId} className="recognition-source">
            <SourceImage source={source} />
            <figcaption>
              {t.sourceCaption(source.createdByName, formatDate(source.createdAt), source.fileName)}
            </figcaption>
          </figure>
        ))}
      </Modal>
    </>
  );
}
