import { DeleteOutlined } from '@ant-design/icons';
import { Button, Select, TreeSelect } from 'antd';
import { operatorLabel } from '@ecrf/core';
import type { SearchDics } from '../../../../api/search.api';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import type { FieldTree } from '../field-tree';
import { fieldInfo, type DraftRow } from '../search-draft';
import { ConditionValue } from './condition-value';

const t = RETRIEVAL_TEXT;

export interface ConditionRowProps {
  dics: SearchDics | undefined;
  tree: FieldTree;
  row: DraftRow;
  /** The row's place in its group, from 0 (labels count from 1). */
  index: number;
  /** False for the only row of the only group. */
  removable: boolean;
  onChange: (change: (r: DraftRow) => DraftRow) => void;
  onRemove: () => void;
}

/** One condition: field, stage (for a form's field), operator and value. */
export function ConditionRow({ dics, tree, row, index, removable, onChange, onRemove }: ConditionRowProps) {
  const info = dics ? fieldInfo(dics, row.field) : null;
  const operators = info
    ? info.operators.map((code) => ({
        value: code,
        label: operatorLabel(info.kind === 'formState' ? 'choice' : info.kind, code),
      }))
    : [];
  return (
    <div className="retrieval-row" data-testid="retrieval-row">
      <TreeSelect
        aria-label={`${t.field} ${index + 1}`}
        className="retrieval-field"
        showSearch
        treeNodeFilterProp="title"
        placeholder={t.fieldPlaceholder}
        treeData={tree}
        value={row.field}
        popupMatchSelectWidth={false}
        onChange={(field: string) => onChange(() => ({ key: row.key, field, values: [], operator: undefined }))}
      />
      {info && info.stages.length > 0 && (
        <Select
          aria-label={`${t.stage} ${index + 1}`}
          className="retrieval-stage"
          allowClear
          placeholder={t.anyStage}
          options={info.stages.map((s) => ({ value: s.stageId, label: s.name }))}
          value={row.stageId}
          onChange={(stageId?: number) => onChange((r) => ({ ...r, stageId }))}
        />
      )}
      <Select
        aria-label={`${t.operator} ${index + 1}`}
        className="retrieval-operator"
        placeholder={t.operator}
        options={operators}
        value={row.operator}
        disabled={!info}
        onChange={(operator) => onChange((r) => ({ ...r, operator, values: [] }))}
      />
      <ConditionValue
        info={info}
        row={row}
        missingCodes={dics?.missingCodes}
        onChange={(values) => onChange((r) => ({ ...r, values }))}
      />
      <Button
        type="text"
        aria-label={t.removeCondition}
        title={t.removeCondition}
        icon={<DeleteOutlined aria-hidden />}
        disabled={!removable}
        onClick={onRemove}
      />
    </div>
  );
}
