import { Button } from 'antd';
import { CheckCircleFilled, EllipsisOutlined, ExclamationCircleFilled } from '@ant-design/icons';
import { useCrfStore, useStoreSlice } from './crf-store';
import { CRF_T } from './crf-texts';

/**
 * An item's own control for the page's item panel (history, SDV, queries), shown only when the page
 * asks for it (CrfForm onItemOpen). It shows the item's mark: an open query, or a verified value.
 */
export function ItemOpenButton({ name, title }: { name: string; title: string }) {
  const store = useCrfStore();
  const enabled = useStoreSlice(store, (s) => s.canOpenItems);
  const mark = useStoreSlice(store, (s) => s.markOf(name));
  if (!enabled || !name) return null;
  const icon =
    mark === 'doubt' ? <ExclamationCircleFilled /> : mark === 'verified' ? <CheckCircleFilled /> : <EllipsisOutlined />;
  return (
    <Button
      type="text"
      size="small"
      className={`crf-item-open${mark ? ` crf-item-open-${mark}` : ''}`}
      aria-label={`${CRF_T.itemActions} ${title}`}
      data-mark={mark ?? ''}
      icon={icon}
      onClick={() => store.openItem(name)}
    />
  );
}
