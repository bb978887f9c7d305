import { useMemo, type Dispatch, type SetStateAction } from 'react';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Radio, Space } from 'antd';
import { SEARCH_JOINS } from '@ecrf/core';
import type { SearchDics } from '../../../../api/search.api';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import { fieldTree } from '../field-tree';
import { newGroup, newRow, sameRowGroups, type Draft, type DraftGroup, type DraftRow } from '../search-draft';
import { ConditionRow } from './condition-row';

const t = RETRIEVAL_TEXT;
const JOIN_OPTIONS = SEARCH_JOINS.map((j) => ({ value: j.code, label: j.label }));

export interface ConditionGroupsProps {
  dics: SearchDics | undefined;
  draft: Draft;
  onChange: Dispatch<SetStateAction<Draft>>;
}

/** The condition builder: groups of conditions, joined within and between groups by 且/或, and 添加条件组. */
export function ConditionGroups({ dics, draft, onChange }: ConditionGroupsProps) {
  const tree = useMemo(() => (dics ? fieldTree(dics) : []), [dics]);

  const update = (change: (d: Draft) => Draft) => onChange((d) => change(d));
  const updateGroup = (key: number, change: (g: DraftGroup) => DraftGroup) =>
    update((d) => ({ ...d, groups: d.groups.map((g) => (g.key === key ? change(g) : g)) }));
  const updateRow = (groupKey: number, rowKey: number, change: (r: DraftRow) => DraftRow) =>
    updateGroup(groupKey, (g) => ({ ...g, rows: g.rows.map((r) => (r.key === rowKey ? change(r) : r)) }));
  const removeRow = (groupKey: number, rowKey: number) =>
    update((d) => {
      const groups = d.groups
        .map((g) => (g.key === groupKey ? { ...g, rows: g.rows.filter((r) => r.key !== rowKey) } : g))
        .filter((g) => g.rows.length > 0);
      return { ...d, groups: groups.length > 0 ? groups : [newGroup()] };
    });

  return (
    <>
      {draft.groups.map((group, gi) => (
        <div key={group.key}>
          {gi > 0 && (
            <div className="retrieval-between">
              <span className="retrieval-join-label">{t.betweenGroups}</span>
              <Radio.Group
                aria-label={t.betweenGroups}
                optionType="button"
                size="small"
                options={JOIN_OPTIONS}
                value={draft.join}
                onChange={(e) => update((d) => ({ ...d, join: e.target.value }))}
              />
            </div>
          )}
          <Card
            size="small"
            className="retrieval-group"
            title={t.group(gi + 1)}
            extra={
              <Space>
                <span className="retrieval-join-label">{t.withinGroup}</span>
                <Radio.Group
                  aria-label={`${t.group(gi + 1)} ${t.withinGroup}`}
                  optionType="button"
                  size="small"
                  options={JOIN_OPTIONS}
                  value={group.join}
                  onChange={(e) => updateGroup(group.key, (g) => ({ ...g, join: e.target.value }))}
                />
                <Button
                  type="text"
                  size="small"
                  aria-label={`${t.removeGroup} ${gi + 1}`}
                  title={t.removeGroup}
                  icon={<DeleteOutlined aria-hidden />}
                  disabled={draft.groups.length === 1}
                  onClick={() => update((d) => ({ ...d, groups: d.groups.filter((g) => g.key !== group.key) }))}
                />
              </Space>
            }
          >
            {group.rows.map((row, ri) => (
              <ConditionRow
                key={row.key}
                dics={dics}
                tree={tree}
                row={row}
                index={ri}
                removable={!(group.rows.length === 1 && draft.groups.length === 1)}
                onChange={(change) => updateRow(group.key, row.key, change)}
                onRemove={() => removeRow(group.key, row.key)}
              />
            ))}
            {dics &&
              sameRowGroups(dics, group).map((title) => (
                <p key={title} className="retrieval-hint retrieval-same-row">
                  {t.sameRowHint(title)}
                </p>
              ))}
            <Button
              type="dashed"
              size="small"
              icon={<PlusOutlined aria-hidden />}
              onClick={() => updateGroup(group.key, (g) => ({ ...g, rows: [...g.rows, newRow()] }))}
            >
              {t.addCondition}
            </Button>
          </Card>
        </div>
      ))}
      <Button
        type="dashed"
        icon={<PlusOutlined aria-hidden />}
        className="retrieval-add-group"
        onClick={() => update((d) => ({ ...d, groups: [...d.groups, newGroup()] }))}
      >
        {t.addGroup}
      </Button>
    </>
  );
}
