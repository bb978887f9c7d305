import { Tag } from 'antd';
import type { ImpactItem, ImpactSummary } from '../../../../api/amendment.api';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';

function Count({ label, value, warn = false }: { label: string; value: number; warn?: boolean }) {
  return (
    <div
      role="group"
      aria-label={label}
      className={`amendment-count${warn && value > 0 ? ' amendment-count-warn' : ''}`}
    >
      <div className="amendment-count-label">{label}</div>
      <div className="amendment-count-value">{value}</div>
    </div>
  );
}

/** An item of the diff as its label and name (a rename as its two names, a retype as its two types). */
function itemText(item: ImpactItem, list: 'added' | 'removed' | 'renamed' | 'retyped'): string {
  if (list === 'renamed') return `${item.label}：${AMENDMENT_TEXT.renamedOf(item.from ?? '', item.to ?? '')}`;
  if (list === 'retyped') {
    return `${item.label}（${item.name ?? ''}）：${AMENDMENT_TEXT.retypedOf(item.fromType ?? '', item.toType ?? '')}`;
  }
  return item.name ? `${item.label}（${item.name}）` : item.label;
}

const LISTS = ['added', 'removed', 'renamed', 'retyped'] as const;

/** The report's counts: how the items change, and the live records it covers with their states. */
export function ImpactSummaryView({ summary }: { summary: ImpactSummary }) {
  const { diff, records } = summary;
  const changedLists = LISTS.filter((list) => (diff[list] ?? []).length > 0);
  return (
    <>
      <section aria-label={AMENDMENT_TEXT.itemsGroup}>
        <h3 className="study-section-title">{AMENDMENT_TEXT.itemsGroup}</h3>
        <div className="amendment-counts">
          {LISTS.map((list) => (
            <Count key={list} label={AMENDMENT_TEXT[list]} value={(diff[list] ?? []).length} />
          ))}
        </div>
        {changedLists.length === 0 ? (
          <p className="study-section-hint">{AMENDMENT_TEXT.noDiff}</p>
        ) : (
          <dl className="amendment-diff">
            {changedLists.map((list) => (
              <div key={list}>
                <dt>{AMENDMENT_TEXT[list]}</dt>
                <dd>
                  {diff[list].map((item, i) => (
                    <Tag key={`${item.name ?? item.from ?? ''}-${i}`}>{itemText(item, list)}</Tag>
                  ))}
                  {list === 'renamed' && <div className="study-section-hint">{AMENDMENT_TEXT.renamedHint}</div>}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <section aria-label={AMENDMENT_TEXT.recordsGroup}>
        <h3 className="study-section-title">{AMENDMENT_TEXT.recordsGroup}</h3>
        <div className="amendment-counts">
          <Count label={AMENDMENT_TEXT.recordsTotal} value={records.total} />
          <Count label={AMENDMENT_TEXT.submitted} value={records.submitted} />
          <Count label={AMENDMENT_TEXT.signed} value={records.signed} warn />
          <Count label={AMENDMENT_TEXT.sdvVerified} value={records.sdvVerified} warn />
          <Count label={AMENDMENT_TEXT.locked} value={records.locked} warn />
          <Count label={AMENDMENT_TEXT.changed} value={records.changed} warn />
          <Count label={AMENDMENT_TEXT.unchanged} value={records.unchanged} />
        </div>
      </section>
    </>
  );
}
