import { DatePicker, Input, InputNumber, Select, Space } from 'antd';
import dayjs from 'dayjs';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { RETRIEVAL_TEXT } from '../../../../locales/retrieval.zh-CN';
import { arityOf, type DraftRow, type FieldInfo } from '../search-draft';

const t = RETRIEVAL_TEXT;
const DATE = 'YYYY-MM-DD';

export interface ConditionValueProps {
  /** The row's field, or null before one is picked. */
  info: FieldInfo | null;
  row: DraftRow;
  onChange: (values: string[]) => void;
  /** The study's missing-data codes, the values of 缺失原因为. */
  missingCodes?: ReadonlyArray<{ value: string; label: string }>;
}

/** A condition's value: a choice, a date or range, a number or range (with its unit), or text; none for 为空. */
export function ConditionValue({ info, row, onChange: set, missingCodes = [] }: ConditionValueProps) {
  const arity = arityOf(row.operator);
  if (!info || !row.operator || arity === 0) return null;
  const label = `${info.title} ${t.value}`;
  if (row.operator === 'missing') {
    return (
      <Select
        aria-label={label}
        className="retrieval-value"
        mode="multiple"
        placeholder={COMMON_TEXT.selectPlaceholder}
        options={[...missingCodes]}
        value={row.values}
        onChange={(v: string[]) => set(v)}
      />
    );
  }
  if (info.kind === 'formState' || info.options.length > 0) {
    const many = arity === 'many';
    return (
      <Select
        aria-label={label}
        className="retrieval-value"
        mode={many ? 'multiple' : undefined}
        placeholder={COMMON_TEXT.selectPlaceholder}
        options={info.options}
        value={many ? row.values : row.values[0]}
        onChange={(v: string | string[] | undefined) => set(v === undefined ? [] : Array.isArray(v) ? v : [v])}
      />
    );
  }
  if (info.kind === 'date') {
    return arity === 2 ? (
      <DatePicker.RangePicker
        aria-label={label}
        placeholder={[t.valueFrom, t.valueTo]}
        value={row.values.length === 2 ? [dayjs(row.values[0]), dayjs(row.values[1])] : null}
        onChange={(range) => set(range?.[0] && range[1] ? [range[0].format(DATE), range[1].format(DATE)] : [])}
      />
    ) : (
      <DatePicker
        aria-label={label}
        value={row.values[0] ? dayjs(row.values[0]) : null}
        onChange={(d) => set(d ? [d.format(DATE)] : [])}
      />
    );
  }
  if (info.kind === 'number') {
    const num = (i: number, placeholder: string) => (
      <InputNumber
        aria-label={arity === 2 ? `${label} ${placeholder}` : label}
        placeholder={placeholder}
        suffix={info.unit || undefined}
        value={row.values[i] === undefined || row.values[i] === '' ? null : Number(row.values[i])}
        onChange={(v) => {
          const next = [...row.values];
          next[i] = v === null || v === undefined ? '' : String(v);
          set(next);
        }}
      />
    );
    const inputs =
      arity === 2 ? (
        <Space size={4}>
          {num(0, t.valueFrom)}
          <span aria-hidden>~</span>
          {num(1, t.valueTo)}
        </Space>
      ) : (
        num(0, t.valuePlaceholder)
      );
    // Values entered in another unit of the item's unit selector are converted to the first unit.
    return info.units.length > 1 ? (
      <Space size={4}>
        {inputs}
        <span className="retrieval-unit-hint">{t.unitHint(info.unit, info.units.slice(1))}</span>
      </Space>
    ) : (
      inputs
    );
  }
  return (
    <Input
      aria-label={label}
      className="retrieval-value"
      placeholder={t.valuePlaceholder}
      value={row.values[0] ?? ''}
      onChange={(e) => set([e.target.value])}
    />
  );
}
