import { Alert } from 'antd';
import type { CrfNode } from '@ecrf/core';
import type { ItemIssue } from '../../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { itemTitle } from '../crf-values';
import { locateItem } from '../locate-item';
import type { SaveErrorList } from '../use-crf-save';

const t = CRF_PAGE_TEXT;

/** A refused save's items, above the form: each title scrolls the form to its item. */
export function SaveErrorListAlert({ errorList, onClose }: { errorList: SaveErrorList; onClose: () => void }) {
  return (
    <Alert
      type="error"
      showIcon
      closable
      className="crf-editor-alert crf-error-list"
      title={errorList.message}
      description={
        <>
          <div className="crf-error-list-hint">{t.errorListTitle(errorList.entries.length)}</div>
          <ul className="crf-warning-list">
            {errorList.entries.map((entry) => (
              <li key={entry.key}>
                <button type="button" className="crf-error-link" onClick={() => locateItem(entry.key, entry.itemName)}>
                  {entry.title}
                </button>
                {entry.messages.length > 0 && <span>：{entry.messages.join('；')}</span>}
              </li>
            ))}
          </ul>
        </>
      }
      onClose={onClose}
    />
  );
}

/** The warnings a submitted form was accepted with. */
export function SaveWarningsAlert({
  warnings,
  nodes,
  onClose,
}: {
  warnings: ItemIssue[];
  nodes: ReadonlyMap<string, CrfNode>;
  onClose: () => void;
}) {
  return (
    <Alert
      type="warning"
      showIcon
      closable
      className="crf-editor-alert"
      title={t.warningsTitle}
      description={
        <ul className="crf-warning-list">
          {warnings.map((w) => (
            <li key={`${w.groupName ?? ''}${w.groupIndex ?? ''}${w.itemName}${w.message}`}>
              <b>{itemTitle(nodes, w.itemName)}</b>：{w.message}
            </li>
          ))}
        </ul>
      }
      onClose={onClose}
    />
  );
}
