import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { FullscreenExitOutlined, FullscreenOutlined, PrinterOutlined, WarningOutlined } from '@ant-design/icons';
import { Anchor, Button, Descriptions, Empty, Image, Modal, Segmented, Space, Spin, Switch, Table } from 'antd';
import {
  evaluateForm,
  fileReference,
  isContainerType,
  isRowType,
  isValueType,
  readMediaList,
  readRows,
  type CrfNode,
  type FormState,
} from '@ecrf/core';
import { crfRecordApi, type OverviewForm } from '../../../api/crf.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { useFileNames } from '../../../stores/file-names.store';
import { formatValue } from '../crf-values';
import { displayTimeZone } from '../../../utils/format-date';
import { ScrollRegion } from '../../../components/scroll-region';
import { SignatureLines } from './signature-lines';

const t = CRF_PAGE_TEXT;

export type OverviewScope = { kind: 'all' } | { kind: 'print'; crfId: number; crfDataRecordId: number | null };

interface Section {
  key: string;
  title: string;
  description?: string;
  items: CrfNode[];
}

/** The form's sections with their value items (items outside any section form one of their own). */
export function sectionsOf(form: Pick<OverviewForm, 'title' | 'definition'>): Section[] {
  const sections: Section[] = [];
  let loose: Section | null = null;
  const collect = (nodes: readonly CrfNode[], into: CrfNode[]) => {
    for (const node of nodes) {
      if (isRowType(node.type) || (node.name && isValueType(node.type))) into.push(node);
      else if (isContainerType(node.type)) collect(node.children, into);
    }
  };
  form.definition.children.forEach((node, index) => {
    if (node.type === 'section') {
      const items: CrfNode[] = [];
      collect(node.children, items);
      sections.push({ key: `s${index}`, title: node.title || form.title, description: node.option.description, items });
    } else {
      if (!loose) {
        loose = { key: `s${index}`, title: form.title, items: [] };
        sections.push(loose);
      }
      collect([node], loose.items);
    }
  });
  return sections;
}

const isBlank = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  value === '[]';

/** A stored file key is fetched with the session and shown from memory (the download call needs the token). */
function StoredImage({ value, alt }: { value: string; alt: string }) {
  const ref = fileReference(value);
  const fileKey = ref.kind === 'key' ? ref.key : null;
  const [src, setSrc] = useState<string | null>(ref.kind === 'url' ? ref.url : null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (fileKey === null) return;
    let url: string | null = null;
    let live = true;
    crfRecordApi
      .downloadFile(fileKey)
      .then((res) => {
        url = URL.createObjectURL(res.data);
        if (live) setSrc(url);
      })
      .catch((error: unknown) => {
        // UPL-19: logged as platform §8 asks, and shown in place (decisions.md): a missing source image must not pass unnoticed.
        console.error(t.imageLoadFailed, fileKey, error);
        if (live) setFailed(true);
      });
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [fileKey]);
  if (failed) {
    return (
      <span className="crf-overview-image-failed" role="alert">
        <WarningOutlined /> {t.imageLoadFailed}
      </span>
    );
  }
  if (!src) return <Spin size="small" />;
  return <Image src={src} width={72} height={72} alt={alt} className="crf-overview-thumb" />;
}

function ItemValue({
  node,
  value,
  values,
  state,
}: {
  node: CrfNode;
  value: unknown;
  values: Record<string, unknown>;
  state: FormState;
}) {
  // Uploads read as the names they were uploaded with (the overview answer names its files).
  const fileNames = useFileNames();
  if (node.type === 'imageUpload') {
    const entries = readMediaList('image', value);
    return (
      <Image.PreviewGroup>
        <Space wrap>
          {entries.map((entry, i) => (
            <StoredImage
              key={`${i}-${entry.dialogImgUrl}`}
              value={entry.dialogImgUrl}
              alt={entry.remarks || node.title}
            />
          ))}
        </Space>
      </Image.PreviewGroup>
    );
  }
  if (isRowType(node.type)) {
    const rows = readRows(value);
    const rowStates = state.items[node.name]?.rows ?? [];
    const columns = node.children.filter((c) => c.name && isValueType(c.type));
    return (
      <Table
        size="small"
        bordered
        pagination={false}
        rowKey={(_row, index) => String(index)}
        dataSource={rows}
        columns={[
          { title: COMMON_TEXT.index, key: '#', width: 56, render: (_v: unknown, _r, i) => i + 1 },
          ...columns.map((c) => ({
            title: c.title || c.name,
            key: c.name,
            render: (_v: unknown, row: Record<string, unknown>, i: number) =>
              rowStates[i]?.[c.name]?.visible === false ? '' : formatValue(c, row[c.name], row, { fileNames }),
          })),
        ]}
      />
    );
  }
  return <>{formatValue(node, value, values, { fileNames })}</>;
}

function RecordSections({
  form,
  values,
  anchorPrefix,
  layout,
  showEmpty,
}: {
  form: OverviewForm;
  values: Record<string, unknown>;
  anchorPrefix: string;
  layout: 'horizontal' | 'vertical';
  showEmpty: boolean;
}) {
  const state = useMemo(
    () => evaluateForm(form.definition, values, { now: new Date(), timeZone: displayTimeZone() }),
    [form.definition, values],
  );
  const sections = useMemo(() => sectionsOf(form), [form]);
  return (
    <>
      {sections.map((section) => {
        const items = section.items.filter((node) => {
          const item = state.items[node.name];
          if (item && !item.visible) return false;
          return showEmpty || !isBlank(values[node.name]);
        });
        if (items.length === 0 && !showEmpty) return null;
        return (
          <section key={section.key} id={`${anchorPrefix}-${section.key}`} className="crf-overview-section">
            <Descriptions
              bordered
              size="small"
              layout={layout}
              column={layout === 'horizontal' ? 2 : 4}
              title={section.title}
              extra={section.description}
              items={items.map((node) => ({
                key: node.name,
                label: node.title || node.name,
                span: isRowType(node.type) || node.type === 'imageUpload' ? 'filled' : 1,
                children: isBlank(values[node.name]) ? (
                  <span className="crf-overview-empty">{t.notFilled}</span>
                ) : (
                  <ItemValue node={node} value={values[node.name]} values={values} state={state} />
                ),
              }))}
            />
          </section>
        );
      })}
    </>
  );
}

/**
 * CRF概览 (every form) and 打印预览 (one form): patient name and code, horizontal or vertical
 * layout, empty values shown or not, sections as tables, an anchor list that follows the scroll,
 * a full-screen toggle (80% / 100%), and printing of the preview (PRINT-02…PRINT-08). The casebook's signatures,
 * valid and voided, close it (Part 11 §11.50), as they close the printed casebook.
 */
export function OverviewDialog({
  open,
  subjectRecordId,
  scope,
  onClose,
}: {
  open: boolean;
  subjectRecordId: number;
  scope: OverviewScope;
  onClose: () => void;
}) {
  const [layout, setLayout] = useState<'horizontal' | 'vertical'>('horizontal');
  const [showEmpty, setShowEmpty] = useState(true);
  const [full, setFull] = useState(false);
  const scroller = useRef<HTMLDivElement | null>(null);
  const limited = scope.kind === 'print';
  const query = useQuery({
    queryKey: queryKeys.crfRecord.overview(
      subjectRecordId,
      limited ? scope.crfId : null,
      limited ? scope.crfDataRecordId : null,
    ),
    queryFn: () =>
      crfRecordApi
        .overview(subjectRecordId, limited ? scope.crfId : undefined, limited ? scope.crfDataRecordId : undefined)
        .then((res) => res.data),
    enabled: open,
  });
  const data = query.data;
  const forms = data?.crfs ?? [];

  const anchors = forms.flatMap((form) =>
    (form.records.length > 0 ? form.records : [null]).map((record, index) => ({
      key: `crf-${form.crfId}-${record?.crfDataRecordId ?? 'none'}`,
      href: `#crf-overview-${form.crfId}-${index}`,
      title: form.records.length > 1 ? `${form.title} ${t.recordNo(index + 1)}` : form.title,
    })),
  );

  const print = () => {
    document.body.classList.add('crf-printing');
    const done = () => {
      document.body.classList.remove('crf-printing');
      window.removeEventListener('afterprint', done);
    };
    window.addEventListener('afterprint', done);
    window.print();
  };

  return (
    <Modal
      open={open}
      title={limited ? t.previewTitle : t.overviewTitle}
      width={full ? '100%' : '80%'}
      className={`crf-overview-modal${full ? ' crf-overview-full' : ''}`}
      style={full ? { top: 0, maxWidth: '100vw', paddingBottom: 0 } : { top: 24 }}
      onCancel={onClose}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onClose}>
          {COMMON_TEXT.cancel}
        </Button>,
        ...(limited
          ? [
              <Button key="print" type="primary" icon={<PrinterOutlined />} onClick={print} disabled={!data}>
                {t.print}
              </Button>,
            ]
          : []),
      ]}
    >
      <div className="crf-overview-toolbar">
        <span className="crf-overview-patient">
          {data ? `${data.subject.subjectName}（${data.subject.identificationCode}）` : ''}
        </span>
        <Space size="middle">
          <Segmented<'horizontal' | 'vertical'>
            value={layout}
            onChange={setLayout}
            options={[
              { value: 'horizontal', label: t.horizontal },
              { value: 'vertical', label: t.vertical },
            ]}
          />
          <span>
            <Switch size="small" checked={showEmpty} onChange={setShowEmpty} aria-label={t.showEmpty} /> {t.showEmpty}
          </span>
          <Button
            size="small"
            icon={full ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
            onClick={() => setFull(!full)}
          >
            {full ? t.exitFullscreen : t.fullscreen}
          </Button>
        </Space>
      </div>
      <div className="crf-overview-body">
        <ScrollRegion
          className="crf-overview-content crf-overview-print"
          ref={scroller}
          label={t.overviewTitle}
          style={{ maxHeight: full ? 'calc(100vh - 190px)' : '65vh' }}
        >
          {!data ? (
            <Spin />
          ) : forms.length === 0 ? (
            <Empty />
          ) : (
            <>
              <h2 className="crf-overview-print-head">
                {data.subject.subjectName}（{data.subject.identificationCode}）
              </h2>
              {forms.map((form) =>
                (form.records.length > 0 ? form.records : [null]).map((record, index) => (
                  <article
                    key={`${form.crfId}-${record?.crfDataRecordId ?? 'none'}`}
                    id={`crf-overview-${form.crfId}-${index}`}
                    className="crf-overview-form"
                  >
                    <h3 className="crf-overview-form-title">
                      {form.title}
                      {form.records.length > 1 ? ` · ${t.recordNo(index + 1)}` : ''}
                    </h3>
                    {record ? (
                      <RecordSections
                        form={form}
                        values={record.values}
                        anchorPrefix={`crf-overview-${form.crfId}-${index}`}
                        layout={layout}
                        showEmpty={showEmpty}
                      />
                    ) : (
                      <div className="crf-overview-empty">{t.noRecords}</div>
                    )}
                  </article>
                )),
              )}
            </>
          )}
          {data && <SignatureLines signatures={data.signatures ?? []} timeZone={data.timeZone ?? displayTimeZone()} />}
        </ScrollRegion>
        {anchors.length > 1 && (
          <Anchor
            className="crf-overview-anchor"
            affix={false}
            getContainer={() => scroller.current ?? window}
            items={anchors}
            onClick={(event) => event.preventDefault()}
          />
        )}
      </div>
    </Modal>
  );
}
