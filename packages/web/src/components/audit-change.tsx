import { PaperClipOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { FILE_DOWNLOAD_PATH } from '@ecrf/core';
import type { FileLink } from '../api/crf.api';
import { CRF_PAGE_TEXT } from '../locales/crf-page.zh-CN';
import './audit-change.css';

/** What an audit row says, as the server worded it (core's describeAuditRow). */
export interface WordedAuditRow {
  action: string;
  oldText: string;
  newText: string;
  oldFiles?: FileLink[];
  newFiles?: FileLink[];
}

/** An object of the external mode is read at its own address; any other file through the download call. */
const fileHref = (file: FileLink) => file.url ?? `${FILE_DOWNLOAD_PATH}?fileKey=${encodeURIComponent(file.fileKey)}`;

/** Files under the names they were uploaded with, opened through the download call (its view rule applies). */
export function FileLinks({ files }: { files: readonly FileLink[] }) {
  return (
    <span className="audit-files">
      {files.map((file) => (
        <a key={file.fileKey} href={fileHref(file)} target="_blank" rel="noreferrer">
          <PaperClipOutlined aria-hidden /> {file.fileName}
        </a>
      ))}
    </span>
  );
}

function Side({ text, files, className }: { text: string; files?: FileLink[]; className: string }) {
  if (files && files.length > 0) {
    return (
      <span className={className}>
        <FileLinks files={files} />
      </span>
    );
  }
  // An empty side is not a value: it is shown as （空）, never struck through.
  if (!text) return <span className="crf-history-empty">{CRF_PAGE_TEXT.empty}</span>;
  return <span className={className}>{text}</span>;
}

/**
 * The change an audit row records: old → new for a value, with uploads as links under their
 * original names; the text a query row carries; nothing for rows without values.
 */
export function AuditChange({ row }: { row: WordedAuditRow }) {
  if (row.action === 'item.update' || row.action === 'subject.update' || row.action === 'subject.state') {
    return (
      <span className="crf-history-change">
        <Side text={row.oldText} files={row.oldFiles} className="crf-history-old" />
        <span aria-hidden> → </span>
        <Side text={row.newText} files={row.newFiles} className="crf-history-new" />
      </span>
    );
  }
  const text = row.newText || row.oldText;
  return text ? <span className="audit-text">{text}</span> : null;
}

/** One audit row as a card (phones and tablets): the action, who and when, the item, the change and the reason. */
export function AuditCard({
  row,
}: {
  row: WordedAuditRow & { actionName: string; userName: string; time: string; item: string; reason: string | null };
}) {
  return (
    <div className="audit-card" data-action={row.action}>
      <div className="audit-card-head">
        <Tag>{row.actionName}</Tag>
        <span>{row.userName}</span>
        <span className="audit-card-time">{row.time}</span>
      </div>
      {row.item && <div className="audit-card-item">{row.item}</div>}
      <div className="audit-card-change">
        <AuditChange row={row} />
      </div>
      {row.reason && (
        <div className="audit-card-reason">
          {CRF_PAGE_TEXT.historyReason}：{row.reason}
        </div>
      )}
    </div>
  );
}
