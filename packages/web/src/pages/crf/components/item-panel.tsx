import { memo, useDeferredValue, useLayoutEffect, useMemo, useRef } from 'react';
import {
  CheckCircleFilled,
  CommentOutlined,
  ExclamationCircleFilled,
  HistoryOutlined,
  SafetyCertificateOutlined,
} from '@ant-design/icons';
import { Badge, Button, Checkbox, Dropdown, Tooltip } from 'antd';
import { FORM_SDV_KEY, type CrfDoubtMark, type SdvMark } from '../../../api/crf.api';
import { COMMENT_TEXT } from '../../../locales/comment.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { DOUBT_TEXT } from '../../../locales/doubt.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { useIdleCount } from '../../../crf';
import type { FormItem } from '../crf-values';

/** Rows of the item list rendered with the page; the rest come in idle time. */
const ROWS_AT_ONCE = 40;

const t = CRF_PAGE_TEXT;

export interface ItemPanelProps {
  items: FormItem[];
  /** The record's saved id: history, SDV and queries need a saved record. */
  recordId: number | null;
  sdv: Record<string, SdvMark>;
  doubts: CrfDoubtMark[];
  sdvMode: boolean;
  canSdv: boolean;
  sdvBusy: boolean;
  onHistory: (item: FormItem | null) => void;
  onDoubts: (item: FormItem, doubts: CrfDoubtMark[]) => void;
  onSdv: (itemNames: string[] | undefined, verified: boolean) => void;
  onLocate: (item: FormItem) => void;
  /** Field comments (批注) per item name of the saved record. */
  commentCounts?: Record<string, number>;
  /** Opens an item's 批注 drawer. */
  onComments?: (item: FormItem) => void;
}

export function SdvMarkIcon({ mark }: { mark: SdvMark }) {
  return (
    <Tooltip title={t.sdvVerified(mark.byName, formatDate(mark.at))}>
      <CheckCircleFilled
        className="crf-sdv-mark"
        role="img"
        aria-label={t.sdvVerified(mark.byName, formatDate(mark.at))}
      />
    </Tooltip>
  );
}

/**
 * CrfForm has no place beside each item for markers, so the form's items are listed here with
 * theirs: the history clock, the SDV mark (a checkbox in SDV mode) and the open queries, which
 * open the query history. Clicking a title scrolls the form to the item.
 */
export const ItemPanel = memo(function ItemPanel({
  items,
  recordId,
  sdv,
  doubts,
  sdvMode,
  canSdv,
  sdvBusy,
  onHistory,
  onDoubts,
  onSdv,
  onLocate,
  commentCounts = NO_COMMENTS,
  onComments,
}: ItemPanelProps) {
  const formMark = sdv[FORM_SDV_KEY];
  // The rows keep their props while the list grows: the handlers are reached through a ref.
  const handlers = useRef({ onHistory, onDoubts, onSdv, onLocate, onComments });
  useLayoutEffect(() => {
    handlers.current = { onHistory, onDoubts, onSdv, onLocate, onComments };
  });
  const actions = useMemo<RowActions>(
    () => ({
      history: (item) => handlers.current.onHistory(item),
      doubts: (item, marks) => handlers.current.onDoubts(item, marks),
      sdv: (itemNames, verified) => handlers.current.onSdv(itemNames, verified),
      locate: (item) => handlers.current.onLocate(item),
      comments: (item) => handlers.current.onComments?.(item),
    }),
    [],
  );
  const doubtsByItem = useMemo(() => {
    const byItem = new Map<string, CrfDoubtMark[]>();
    const add = (name: string, doubt: CrfDoubtMark) => {
      const list = byItem.get(name);
      if (list) list.push(doubt);
      else byItem.set(name, [doubt]);
    };
    for (const doubt of doubts) {
      add(doubt.itemName, doubt);
      if (doubt.groupName && doubt.groupName !== doubt.itemName) add(doubt.groupName, doubt);
    }
    return byItem;
  }, [doubts]);
  // A 500-item form's list: the first rows in a render of their own right after the form's first one (false on
  // the first render, then true in a transition: the form's first fields are painted without waiting for the
  // rows' buttons and tooltips), the others in idle time.
  const rowsReady = useDeferredValue(true, false);
  const shownRows = useIdleCount(items.length, ROWS_AT_ONCE);
  return (
    <div className="crf-item-panel">
      <div className="crf-item-panel-head">
        <span className="crf-item-panel-title">{t.items}</span>
        <Button
          size="small"
          type="link"
          icon={<HistoryOutlined />}
          disabled={recordId === null}
          onClick={() => onHistory(null)}
        >
          {t.formHistory}
        </Button>
      </div>
      {(sdvMode || formMark) && (
        <div className="crf-item-panel-form-sdv">
          {formMark ? (
            <>
              <SdvMarkIcon mark={formMark} />
              <span>{t.sdvFormDone}</span>
              {sdvMode && canSdv && (
                <Button size="small" type="link" disabled={sdvBusy} onClick={() => onSdv(undefined, false)}>
                  {t.sdvFormUndo}
                </Button>
              )}
            </>
          ) : (
            <Button
              size="small"
              icon={<SafetyCertificateOutlined />}
              disabled={!canSdv || recordId === null || sdvBusy}
              onClick={() => onSdv(undefined, true)}
            >
              {t.sdvForm}
            </Button>
          )}
        </div>
      )}
      <ul className="crf-item-list">
        {items.slice(0, rowsReady ? shownRows : 0).map((item) => (
          <ItemRow
            key={item.name}
            item={item}
            mark={sdv[item.name]}
            mine={doubtsByItem.get(item.name) ?? NO_DOUBTS}
            recordId={recordId}
            sdvMode={sdvMode}
            canSdv={canSdv}
            sdvBusy={sdvBusy}
            actions={actions}
            comments={onComments ? (commentCounts[item.name] ?? 0) : null}
          />
        ))}
      </ul>
    </div>
  );
});

const NO_DOUBTS: CrfDoubtMark[] = [];
const NO_COMMENTS: Record<string, number> = {};

interface RowActions {
  history: (item: FormItem) => void;
  doubts: (item: FormItem, doubts: CrfDoubtMark[]) => void;
  sdv: (itemNames: string[], verified: boolean) => void;
  locate: (item: FormItem) => void;
  comments: (item: FormItem) => void;
}

/** One item of the list, with its markers and history button. */
const ItemRow = memo(function ItemRow({
  item,
  mark,
  mine,
  recordId,
  sdvMode,
  canSdv,
  sdvBusy,
  actions,
  comments,
}: {
  item: FormItem;
  mark: SdvMark | undefined;
  mine: CrfDoubtMark[];
  recordId: number | null;
  sdvMode: boolean;
  canSdv: boolean;
  sdvBusy: boolean;
  actions: RowActions;
  /** The item's comment count; null where the page offers no comments. */
  comments: number | null;
}) {
  return (
    <li className="crf-item-row" data-item={item.name}>
      {sdvMode && (
        <Checkbox
          aria-label={`${t.sdvItem} ${item.title}`}
          checked={Boolean(mark)}
          disabled={!canSdv || recordId === null || sdvBusy}
          onChange={(event) => actions.sdv([item.name], event.target.checked)}
        />
      )}
      <button
        type="button"
        className="crf-item-title"
        title={[...item.path, item.title].join(' / ')}
        onClick={() => actions.locate(item)}
      >
        {item.title}
      </button>
      <span className="crf-item-markers">
        {mark && !sdvMode && <SdvMarkIcon mark={mark} />}
        {mine.length === 1 && (
          <Tooltip title={t.doubtMarker(1)}>
            <button
              type="button"
              className="crf-doubt-marker"
              aria-label={`${DOUBT_TEXT.historyTitle} ${item.title}`}
              onClick={() => actions.doubts(item, mine)}
            >
              <ExclamationCircleFilled />
            </button>
          </Tooltip>
        )}
        {mine.length > 1 && (
          // Several queries on one item (a check and a range, or a row's cells): the user picks one.
          <Dropdown
            trigger={['click']}
            menu={{
              items: mine.map((d, index) => ({
                key: String(d.doubtId),
                label: `${DOUBT_TEXT.types[d.doubtType] ?? ''}${DOUBT_TEXT.historyTitle} ${index + 1}${d.groupName ? ` · ${DOUBT_TEXT.groupRow('', d.groupIndex ?? 0).trim()}` : ''}`,
              })),
              onClick: ({ key }) =>
                actions.doubts(
                  item,
                  mine.filter((d) => String(d.doubtId) === key),
                ),
            }}
          >
            <button type="button" className="crf-doubt-marker" aria-label={`${DOUBT_TEXT.historyTitle} ${item.title}`}>
              <Badge count={mine.length} size="small" offset={[4, -2]}>
                <ExclamationCircleFilled />
              </Badge>
            </button>
          </Dropdown>
        )}
        {comments !== null && (
          <Tooltip title={comments > 0 ? COMMENT_TEXT.count(comments) : COMMENT_TEXT.title}>
            <Button
              size="small"
              type="text"
              // The badge's number is visible text, so the name carries it too (axe label-content-name-mismatch).
              aria-label={`${COMMENT_TEXT.title} ${item.title}${comments > 0 ? `：${COMMENT_TEXT.count(comments)}` : ''}`}
              icon={
                <Badge count={comments} size="small" offset={[4, -2]}>
                  <CommentOutlined />
                </Badge>
              }
              disabled={recordId === null}
              onClick={() => actions.comments(item)}
            />
          </Tooltip>
        )}
        <Tooltip title={t.history}>
          <Button
            size="small"
            type="text"
            aria-label={`${t.history} ${item.title}`}
            icon={<HistoryOutlined />}
            disabled={recordId === null}
            onClick={() => actions.history(item)}
          />
        </Tooltip>
      </span>
    </li>
  );
});

export interface ItemSheetProps {
  item: FormItem;
  recordId: number | null;
  mark: SdvMark | undefined;
  /** The open queries on this item (its cells included). */
  doubts: CrfDoubtMark[];
  sdvMode: boolean;
  canSdv: boolean;
  sdvBusy: boolean;
  onHistory: (item: FormItem) => void;
  onDoubts: (item: FormItem, doubts: CrfDoubtMark[]) => void;
  onSdv: (itemNames: string[], verified: boolean) => void;
  /** The item's comment count and its 批注 drawer; absent where the page offers no comments. */
  commentCount?: number;
  onComments?: (item: FormItem) => void;
}

/**
 * One item's panel on a screen without room for the list beside the form, opened from the item's own
 * control: its history, its SDV mark (a box to tick in SDV mode) and its open queries, as buttons a
 * finger can hit.
 */
export function ItemSheet({
  item,
  recordId,
  mark,
  doubts,
  sdvMode,
  canSdv,
  sdvBusy,
  onHistory,
  onDoubts,
  onSdv,
  commentCount = 0,
  onComments,
}: ItemSheetProps) {
  return (
    <div className="crf-item-sheet">
      {item.path.length > 0 && <div className="crf-item-sheet-path">{item.path.join(' / ')}</div>}
      <Button
        block
        size="large"
        icon={<HistoryOutlined />}
        disabled={recordId === null}
        onClick={() => onHistory(item)}
      >
        {t.history}
      </Button>
      {onComments && (
        <Button
          block
          size="large"
          icon={<CommentOutlined />}
          disabled={recordId === null}
          onClick={() => onComments(item)}
        >
          {commentCount > 0 ? COMMENT_TEXT.count(commentCount) : COMMENT_TEXT.title}
        </Button>
      )}
      {sdvMode ? (
        <label className="crf-item-sheet-sdv">
          <Checkbox
            checked={Boolean(mark)}
            disabled={!canSdv || recordId === null || sdvBusy}
            onChange={(event) => onSdv([item.name], event.target.checked)}
          />
          <span>{t.sdvItem}</span>
          {mark && <span className="crf-muted">{t.sdvVerified(mark.byName, formatDate(mark.at))}</span>}
        </label>
      ) : (
        mark && (
          <div className="crf-item-sheet-sdv">
            <SdvMarkIcon mark={mark} />
            <span>{t.sdvVerified(mark.byName, formatDate(mark.at))}</span>
          </div>
        )
      )}
      {doubts.map((d, index) => (
        <Button
          key={d.doubtId}
          block
          size="large"
          danger
          icon={<ExclamationCircleFilled />}
          onClick={() => onDoubts(item, [d])}
        >
          {`${DOUBT_TEXT.types[d.doubtType] ?? ''}${DOUBT_TEXT.historyTitle}${doubts.length > 1 ? ` ${index + 1}` : ''}${d.groupName ? ` · ${DOUBT_TEXT.groupRow('', d.groupIndex ?? 0).trim()}` : ''}`}
        </Button>
      ))}
      {recordId === null && <div className="crf-muted">{t.sdvNeedsRecord}</div>}
    </div>
  );
}
