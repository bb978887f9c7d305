import { Alert, Checkbox, Image, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { RECOGNITION_TEXT } from '../../../locales/recognition.zh-CN';
import type { ReviewRow } from './review-fills';

const t = RECOGNITION_TEXT;

export interface RecognitionReviewProps {
  rows: readonly ReviewRow[];
  selected: ReadonlySet<string>;
  onToggle: (itemName: string, checked: boolean) => void;
  /** The report's rows no item of the template took. */
  unmatched: readonly string[];
}

/**
 * The review step of 智能识别: each proposed value beside its crop of the report, the nurse ticks what she fills.
 * A value the plausibility gate doubts is offered unchecked with 请核对 and why.
 */
export function RecognitionReview({ rows, selected, onToggle, unmatched }: RecognitionReviewProps) {
  const columns: ColumnsType<ReviewRow> = [
    { title: t.reviewItem, dataIndex: 'itemTitle', width: 150 },
    {
      title: t.reviewValue,
      width: 130,
      render: (_, row) => (
        <span className="recognition-review-value">
          <strong>{row.shown}</strong>
          {row.unit ? <span className="recognition-review-unit"> {row.unit}</span> : null}
        </span>
      ),
    },
    {
      title: t.reviewCrop,
      render: (_, row) =>
        row.crop ? (
          <Image className="recognition-crop" src={row.crop} alt={t.cropAlt(row.itemTitle)} />
        ) : (
          <span className="recognition-review-muted">{t.noCrop}</span>
        ),
    },
    {
      title: t.reviewState,
      width: 200,
      render: (_, row) => (
        <div className="recognition-review-state">
          <Checkbox
            checked={selected.has(row.itemName)}
            onChange={(event) => onToggle(row.itemName, event.target.checked)}
            aria-label={t.fillThis(row.itemTitle)}
          >
            {t.fillThisShort}
          </Checkbox>
          {row.verdict === 'offer' && (
            <div className="recognition-review-doubt">
              <Tag className="recognition-review-check">{t.check}</Tag>
              {row.reasons.length > 0 && (
                <ul className="recognition-review-reasons">
                  {row.reasons.map((reason) => (
                    <li key={reason}>{reason}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
      ),
    },
  ];
  return (
    <div className="recognition-review">
      <Alert type="info" showIcon title={t.reviewHint} className="recognition-review-hint" />
      <Table<ReviewRow>
        rowKey="itemName"
        size="small"
        pagination={false}
        columns={columns}
        dataSource={[...rows]}
        rowClassName={(row) => (row.verdict === 'offer' ? 'recognition-review-offer' : '')}
      />
      {unmatched.length > 0 && (
        <p className="recognition-review-muted recognition-review-unmatched">{t.unmatched(unmatched)}</p>
      )}
    </div>
  );
}
