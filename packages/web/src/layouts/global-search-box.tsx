import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { AutoComplete, Input } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import { SEARCH_KEY_MAX, type GlobalSearchGroup } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { globalSearchApi } from '../api/global-search.api';
import { queryKeys } from '../api/query-keys';

export const GLOBAL_SEARCH_LABEL = '全局搜索';
export const GLOBAL_SEARCH_PLACEHOLDER = '搜索项目、患者编号、CRF';
export const GLOBAL_SEARCH_EMPTY = '无匹配结果';
/** Typing settles this long before the server is asked. */
export const GLOBAL_SEARCH_DEBOUNCE_MS = 250;

/** The box's options: one group per source, each hit carrying the route it opens as its value. */
export function searchOptions(groups: readonly GlobalSearchGroup[]) {
  return groups.map((group) => ({
    label: group.label,
    options: group.hits.map((hit) => ({
      value: hit.path,
      key: `${hit.type}:${hit.id}`,
      label: (
        <div className="global-search-hit" data-type={hit.type}>
          <span className="global-search-hit-title">{hit.title}</span>
          {hit.description && <span className="global-search-hit-desc"> {hit.description}</span>}
        </div>
      ),
    })),
  }));
}

/**
 * One search box in the top bar (SHELL-33) over what the signed-in user may see: studies, patients by code (and
 * by name where the user sees names), CRFs, and any source the server registers later. Picking a hit opens it.
 */
export function GlobalSearchBox() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [key, setKey] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setKey(text.trim()), GLOBAL_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const result = useQuery({
    queryKey: queryKeys.globalSearch.hits(key),
    enabled: key.length > 0,
    staleTime: 30_000,
    queryFn: () => globalSearchApi.search(key).then((res) => res.data),
  });
  const groups = key ? (result.data ?? []) : [];
  return (
    <AutoComplete
      className="global-search"
      popupMatchSelectWidth={360}
      style={{ width: 240 }}
      value={text}
      options={searchOptions(groups)}
      notFoundContent={key && result.isSuccess ? GLOBAL_SEARCH_EMPTY : null}
      onChange={(value: string) => setText(value)}
      onSelect={(path: string) => {
        setText('');
        setKey('');
        void navigate(path);
      }}
    >
      <Input
        aria-label={GLOBAL_SEARCH_LABEL}
        placeholder={GLOBAL_SEARCH_PLACEHOLDER}
        maxLength={SEARCH_KEY_MAX}
        prefix={<SearchOutlined aria-hidden />}
        allowClear
      />
    </AutoComplete>
  );
}
