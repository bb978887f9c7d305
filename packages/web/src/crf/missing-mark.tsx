import { Button, Dropdown, Tag } from 'antd';
import { useCrfStore, useStoreSlice } from './crf-store';
import { CRF_T } from './crf-texts';

const CLEAR_KEY = '__clear__';

/**
 * 缺失原因 (issue 37): an item's small 缺失 menu beside its label, where the nurse stands when the value cannot be
 * had: mark the item with one of the study's codes (未查(ND) …), change the code, or clear the mark. Shown only
 * where the page lets her change the form and the study has codes.
 */
export function MissingMarkMenu({ name, title, code }: { name: string; title: string; code: string | undefined }) {
  const store = useCrfStore();
  const enabled = useStoreSlice(store, (s) => s.canMarkMissing);
  const codes = useStoreSlice(store, (s) => s.missingCodes);
  if (!enabled) return null;
  const items = [
    ...codes.map((c) => ({ key: c.code, label: store.missingText(c.code), disabled: c.code === code })),
    ...(code === undefined ? [] : [{ type: 'divider' as const }, { key: CLEAR_KEY, label: CRF_T.missingClear }]),
  ];
  return (
    <Dropdown
      trigger={['click']}
      menu={{ items, onClick: ({ key }) => store.markMissing(name, key === CLEAR_KEY ? null : key) }}
    >
      <Button
        type="link"
        size="small"
        className={`crf-missing-open${code === undefined ? '' : ' crf-missing-open-marked'}`}
        // Named by its text (缺失) and described by its title: an aria-label naming the item would make the item's
        // title label two controls (the input and this button).
        title={`${CRF_T.missingMark} ${title}`}
      >
        {CRF_T.missingShort}
      </Button>
    </Dropdown>
  );
}

/** A marked item's code in place of its control: 未查(ND). */
export function MissingMarkTag({ id, code }: { id: string; code: string }) {
  const store = useCrfStore();
  const text = useStoreSlice(store, (s) => s.missingText(code));
  return (
    <Tag id={id} className="crf-missing-tag" color="default" title={CRF_T.missingReason}>
      {text}
    </Tag>
  );
}
