import { DatePicker, Form, Input, Select, TreeSelect } from 'antd';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { FilterButtons } from '../filter-buttons';
import { isActions, type PageColumn, type SearchField, type SearchType } from './columns';

/** A search field resolved against its column: name, label and type always known. */
export interface ResolvedSearchField extends SearchField {
  name: string;
  label: string;
  type: SearchType;
}

const DEFAULT_WIDTH: Record<SearchType, number | undefined> = {
  input: 180,
  select: 130,
  'tree-select': 200,
  'date-range': undefined,
};

/** The filters the columns declare, in column order (or `searchOrder`). */
export function searchFields<T>(columns: readonly PageColumn<T>[]): ResolvedSearchField[] {
  return columns
    .map((column, position) => ({ column, position }))
    .filter(({ column }) => column.search)
    .sort((a, b) => (a.column.searchOrder ?? a.position) - (b.column.searchOrder ?? b.position))
    .map(({ column }) => {
      const field = column.search === true ? {} : column.search!;
      const dataIndex = isActions(column) ? undefined : column.dataIndex;
      const name = field.name ?? dataIndex ?? column.key;
      if (!name) throw new Error(`search field of column ${column.title} has no name`);
      const type = field.type ?? (field.options ? 'select' : field.treeData ? 'tree-select' : 'input');
      return { ...field, name, type, label: field.label ?? column.title };
    });
}

/** One filter's control. Form.Item hands it id, value and onChange, which go on to the antd control. */
function Control({ field, ...bound }: { field: ResolvedSearchField }) {
  const style = { width: field.width ?? DEFAULT_WIDTH[field.type] };
  switch (field.type) {
    case 'input':
      return <Input {...bound} allowClear placeholder={(field.placeholder as string) ?? field.label} style={style} />;
    case 'select':
      return (
        <Select
          {...bound}
          allowClear
          options={field.options as { value: string | number; label: string }[]}
          placeholder={(field.placeholder as string) ?? COMMON_TEXT.selectPlaceholder}
          style={style}
        />
      );
    case 'tree-select':
      return (
        <TreeSelect
          {...bound}
          allowClear
          treeData={field.treeData}
          treeDefaultExpandAll
          placeholder={(field.placeholder as string) ?? COMMON_TEXT.selectPlaceholder}
          style={style}
        />
      );
    case 'date-range':
      return (
        <DatePicker.RangePicker
          {...bound}
          allowEmpty={[true, true]}
          placeholder={Array.isArray(field.placeholder) ? field.placeholder : undefined}
          style={style}
        />
      );
  }
}

/** Trims typed text and leaves empty filters out, so a blank box does not filter. */
export function defaultFilters(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values)
      .map(([key, value]) => [key, typeof value === 'string' ? value.trim() : value] as const)
      .filter(([, value]) => value !== undefined && value !== null && value !== ''),
  );
}

interface SearchFormProps {
  /** The form's name (its fields' ids start with it). */
  name: string;
  fields: readonly ResolvedSearchField[];
  /** The fields' first values (the list opened filtered). */
  initialValues?: Record<string, unknown>;
  onSearch: (values: Record<string, unknown>) => void;
  onReset: () => void;
}

/** The filter row above a list: one control per searchable column, then 搜索 and 重置. */
export function SearchForm({ name, fields, initialValues, onSearch, onReset }: SearchFormProps) {
  const [form] = Form.useForm();
  if (fields.length === 0) return null;
  return (
    <Form
      form={form}
      name={name}
      layout="inline"
      className="page-filters"
      initialValues={initialValues}
      onFinish={onSearch}
    >
      {fields.map((field) => (
        <Form.Item key={field.name} label={field.label} name={field.name}>
          <Control field={field} />
        </Form.Item>
      ))}
      <FilterButtons form={form} onReset={onReset} />
    </Form>
  );
}
