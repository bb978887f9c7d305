import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Drawer, Empty, Input, Spin, Tooltip } from 'antd';
import { COMMENT_MAX_LENGTH } from '@ecrf/core';
import { commentApi } from '../../../api/comment.api';
import { queryKeys } from '../../../api/query-keys';
import { COMMENT_TEXT } from '../../../locales/comment.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { useRecordComments } from '../use-record-comments';
import './comments-drawer.css';

const t = COMMENT_TEXT;

export interface CommentTarget {
  crfDataRecordId: number;
  itemName: string;
  /** The item's title, for the drawer's heading. */
  title: string;
}

export interface CommentsSectionProps {
  studyId: number;
  crfDataRecordId: number;
  itemName: string;
  /** May the user add one (the form is readable): without it the box is hidden, the list stays. */
  canComment: boolean;
  /** The lock's words when the data is locked: the box stays, disabled, and says why. */
  lockedText?: string;
}

/**
 * One item's field comments (批注): who wrote each, when and what, oldest first, then a box to add one. A comment is
 * never changed or removed (append-only, like the trail it is audited in); a correction is a new comment.
 */
export function CommentsSection({ studyId, crfDataRecordId, itemName, canComment, lockedText }: CommentsSectionProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { comments, loading } = useRecordComments(studyId, crfDataRecordId);
  const mine = comments.filter((c) => c.itemName === itemName);
  const [content, setContent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (text: string) => commentApi.add({ studyId, crfDataRecordId, itemName, content: text }),
    onSuccess: async () => {
      setContent('');
      void message.success(t.added);
      await queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.comments(crfDataRecordId) });
    },
  });
  const submit = () => {
    const text = content.trim();
    if (!text) {
      setError(t.required);
      return;
    }
    setError(null);
    add.mutate(text);
  };
  const locked = Boolean(lockedText);
  return (
    <section className="crf-comments" aria-label={t.title}>
      <Spin spinning={loading}>
        {mine.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t.empty} />
        ) : (
          <ul className="crf-comment-list">
            {mine.map((c) => (
              <li key={c.commentId} className="crf-comment">
                <div className="crf-comment-head">
                  <span className="crf-comment-author">{c.userName}</span>
                  <span className="crf-muted">{formatDate(c.createDate)}</span>
                </div>
                <div className="crf-comment-content">{c.content}</div>
              </li>
            ))}
          </ul>
        )}
      </Spin>
      {canComment && (
        <div className="crf-comment-form">
          <Input.TextArea
            aria-label={t.placeholder}
            placeholder={t.placeholder}
            value={content}
            maxLength={COMMENT_MAX_LENGTH}
            showCount
            autoSize={{ minRows: 2, maxRows: 6 }}
            disabled={locked}
            status={error ? 'error' : undefined}
            onChange={(event) => {
              setContent(event.target.value);
              if (error) setError(null);
            }}
          />
          {error && (
            <div className="ant-form-item-explain-error" role="alert">
              {error}
            </div>
          )}
          <Tooltip title={lockedText}>
            <Button type="primary" disabled={locked} loading={add.isPending} onClick={submit}>
              {t.add}
            </Button>
          </Tooltip>
          {lockedText && <div className="crf-muted">{lockedText}</div>}
        </div>
      )}
    </section>
  );
}

/** An item's 批注 drawer, opened from the item list (or an item's sheet on a small screen). */
export function CommentsDrawer({
  studyId,
  target,
  canComment,
  lockedText,
  phone = false,
  onClose,
}: {
  studyId: number;
  target: CommentTarget | null;
  canComment: boolean;
  lockedText?: string;
  phone?: boolean;
  onClose: () => void;
}) {
  return (
    <Drawer
      open={target !== null}
      title={target ? t.titleOf(target.title) : t.title}
      size={phone ? '100%' : 'min(480px, 100vw)'}
      onClose={onClose}
      destroyOnHidden
    >
      {target && (
        <CommentsSection
          studyId={studyId}
          crfDataRecordId={target.crfDataRecordId}
          itemName={target.itemName}
          canComment={canComment}
          lockedText={lockedText}
        />
      )}
    </Drawer>
  );
}
