import { useMemo } from 'react';
import { TreeSelect } from 'antd';
import type { SearchDics } from '../../../../api/search.api';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import { columnTree } from '../field-tree';

const t = RETRIEVAL_TEXT;

export interface ColumnPickerProps {
  dics: SearchDics | undefined;
  /** The chosen columns as the tree's values (columnValue). */
  value: string[];
  onChange: (value: string[]) => void;
}

/** 显示列: the patient fields and form items shown as the result table's columns. */
export function ColumnPicker({ dics, value, onChange }: ColumnPickerProps) {
  const colTree = useMemo(() => (dics ? columnTree(dics) : []), [dics]);
  return (
    <div className="retrieval-columns">
      <label htmlFor="retrieval-columns">{t.columns}</label>
      <TreeSelect
        id="retrieval-columns"
        aria-label={t.columns}
        className="retrieval-columns-picker"
        treeData={colTree}
        value={value}
        onChange={(next: string[]) => onChange(next)}
        multiple
        treeCheckable
        showSearch
        treeNodeFilterProp="title"
        maxTagCount="responsive"
        placeholder={t.columnsPlaceholder}
      />
    </div>
  );
}
