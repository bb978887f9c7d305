import { useMemo, useState, type ReactNode } from 'react';
import { Button, InputNumber, Radio, Select, Space, Tooltip } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { Circle, Image as KonvaImage, Layer, Line, Rect, Stage, Text } from 'react-konva';
import type Konva from 'konva';
import {
  SPINE_MANUAL_CANVAS,
  SPINE_MEASURES,
  SPINE_MEASURE_DEFINITIONS,
  SPINE_FACINGS,
  SPINE_UNITS,
  canDrawReference,
  spineBandSetOf,
  type SpineFacing,
  type SpineMeasure,
  type SpinePoint,
  type SpineUnit,
} from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../../../crf/crf-store';
import { useCrfUi } from '../../../crf/crf-ui';
import { fileUrl } from '../../../crf/upload-rules';
import type { ControlProps } from '../../../crf/widgets/widget-types';
import {
  addLine,
  checkStartLine,
  clampPoint,
  clearMeasure,
  deleteLine,
  fitImage,
  measureOf,
  moveHandle,
  newDocument,
  readDocument,
  recompute,
  setFacing,
  setReferenceLength,
  setReferenceLine,
  setUnit,
  writeDocument,
  type MeasureDocument,
} from './measure-state';
import { SpineUploadArea } from '../spine-upload-area';
import { useFilmUpload } from '../use-film-upload';
import { useImageElement } from '../use-image-element';
import { SPM_T } from './texts';
import './spine-measure.css';

const { width: W, height: H } = SPINE_MANUAL_CANVAS;
const LINE_COLOUR = '#00e5ff';
const REFERENCE_COLOUR = '#ffd600';
const PENDING_COLOUR = '#ff4081';

type Mode = 'line' | 'reference' | null;

/** One drawn line of the measure in the list beside the film, with its delete button while the form is editable. */
function LineRow({
  deleteLabel,
  onDelete,
  children,
}: {
  deleteLabel: string;
  onDelete: (() => void) | null;
  children: ReactNode;
}) {
  return (
    <li>
      <span>{children}</span>
      {onDelete && (
        <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={deleteLabel} onClick={onDelete} />
      )}
    </li>
  );
}

/**
 * 脊柱手动测量 (forms §3, §4, §9; SPM-01..SPM-14): an X-ray on a 500 × 800 canvas, the 11 measures, lines drawn
 * by two clicks, handles dragged, the angle, lengths and the diagnosis of core's bands recomputed on every edit.
 * The value is the JSON of the manual measurement data; the server checks it on save.
 */
export function SpineMeasureWidget({ node, id, value, disabled, onChange, onBlur, labelId }: ControlProps) {
  const store = useCrfStore();
  const ui = useCrfUi();
  const canUpload = useStoreSlice(store, (s) => s.canUpload);
  // The study's 脊柱诊断分级标准 (the record detail's spineBandSet): the bands every diagnosis here is read by.
  const bandSet = spineBandSetOf(store.context.spineBandSet);
  const valueText = typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value);
  // The text last written or received: a value set from outside (a reload, another save) replaces the drawing.
  const [seen, setSeen] = useState(valueText);
  const [doc, setDoc] = useState<MeasureDocument | null>(() => readDocument(value, bandSet));
  if (valueText !== seen || (doc && doc.bandSet !== bandSet)) {
    setSeen(valueText);
    setDoc(readDocument(value, bandSet));
  }
  const [tool, setTool] = useState<SpineMeasure>('TK');
  const [mode, setMode] = useState<Mode>(null);
  const [pending, setPending] = useState<SpinePoint | null>(null);
  const [pointer, setPointer] = useState<SpinePoint | null>(null);

  const commit = (next: MeasureDocument | null) => {
    setDoc(next);
    const text = next ? writeDocument(next) : '';
    setSeen(text);
    onChange(text);
    onBlur();
  };

  const image = useImageElement(doc?.imgUrl ? fileUrl(doc.imgUrl) : null);
  const placement = useMemo(() => (image ? fitImage(image, SPINE_MANUAL_CANVAS) : null), [image]);

  // A frame sent from the imaging viewer replaces the film, like a file chosen here.
  const { busy: uploading, upload } = useFilmUpload(node.name, disabled, SPM_T.uploadFailed, async (file) => {
    const result = await store.upload(file, 'image');
    const stored = result.url ?? result.fileKey ?? '';
    if (!stored) throw new Error(SPM_T.uploadFailed);
    commit(newDocument(stored, bandSet));
  });

  if (!doc) {
    if (disabled) return <span className="crf-muted">{SPM_T.empty}</span>;
    return (
      <SpineUploadArea
        className="spm-upload"
        id={id}
        labelId={labelId}
        disabled={uploading || !canUpload}
        text={uploading ? SPM_T.uploading : SPM_T.uploadHint}
        hint={SPM_T.uploadTypes}
        onFile={(file) => void upload(file)}
      />
    );
  }

  const def = SPINE_MEASURE_DEFINITIONS[tool];
  const data = measureOf(doc, tool);
  const result = recompute(doc, tool);
  const unitLabel = (u: SpineUnit) => (u === 'none' ? '' : ` ${u}`);

  const startDrawing = (next: Exclude<Mode, null>) => {
    if (next === 'line') {
      // SPM-07, SPM-09: an angle tool's third line, or a distance line before the reference line, is refused.
      const check = checkStartLine(doc, tool);
      if (!check.ok) {
        void ui.message.warning(check.message);
        return;
      }
    }
    setPending(null);
    setMode(next);
  };

  const pointOf = (stage: Konva.Stage | null): SpinePoint | null => {
    const p = stage?.getPointerPosition();
    return p ? clampPoint(p, W, H) : null;
  };

  // SPM-06: the first click starts the line, the second ends it, then drawing stops.
  const onStageClick = (e: Konva.KonvaEventObject<MouseEvent | TouchEvent>) => {
    if (!mode || disabled) return;
    const p = pointOf(e.target.getStage());
    if (!p) return;
    if (!pending) {
      setPending(p);
      return;
    }
    if (p.x !== pending.x || p.y !== pending.y) {
      commit(mode === 'line' ? addLine(doc, tool, pending, p) : setReferenceLine(doc, tool, pending, p));
    }
    setPending(null);
    setMode(null);
  };

  const handles = (line: { start: SpinePoint; end: SpinePoint }, which: number | 'reference', colour: string) =>
    ([0, 1] as const).map((end) => {
      const at = end === 0 ? line.start : line.end;
      return (
        <Circle
          key={`${String(which)}-${end}`}
          name={`handle-${String(which)}-${end}`}
          x={at.x}
          y={at.y}
          radius={6}
          stroke={colour}
          strokeWidth={2}
          fill="rgba(0,0,0,0.35)"
          draggable={!disabled && !mode}
          dragBoundFunc={(pos) => clampPoint(pos, W, H)}
          onDragMove={(e) => {
            const to = clampPoint(e.target.position(), W, H);
            setDoc(moveHandle(doc, tool, which, end, to));
          }}
          onDragEnd={(e) => commit(moveHandle(doc, tool, which, end, clampPoint(e.target.position(), W, H)))}
        />
      );
    });

  const midpoint = (l: { start: SpinePoint; end: SpinePoint }) => ({
    x: (l.start.x + l.end.x) / 2 + 6,
    y: (l.start.y + l.end.y) / 2 - 16,
  });

  return (
    <div className="spm" id={id} aria-labelledby={labelId}>
      <div className="spm-stage" data-mode={mode ?? ''} data-testid="spm-stage">
        <Stage
          width={W}
          height={H}
          onClick={onStageClick}
          onTap={onStageClick}
          onMouseMove={(e) => mode && setPointer(pointOf(e.target.getStage()))}
        >
          <Layer>
            <Rect x={0} y={0} width={W} height={H} fill="#000" />
            {image && placement && <KonvaImage image={image} {...placement} />}
            {/* Which side is anterior, as the facing says: the sagittal signs are read by it. */}
            {(['posterior', 'anterior'] as const).map((side, i) => (
              <Text
                key={side}
                x={(doc.facing === 'right') === (i === 1) ? W - 28 : 10}
                y={10}
                text={SPM_T[side]}
                fill={REFERENCE_COLOUR}
                fontSize={16}
                listening={false}
              />
            ))}
          </Layer>
          <Layer>
            {data.referenceLine && (
              <>
                <Line
                  points={[
                    data.referenceLine.start.x,
                    data.referenceLine.start.y,
                    data.referenceLine.end.x,
                    data.referenceLine.end.y,
                  ]}
                  stroke={REFERENCE_COLOUR}
                  strokeWidth={2}
                  dash={[8, 4]}
                />
                <Text {...midpoint(data.referenceLine)} text={SPM_T.reference} fill={REFERENCE_COLOUR} fontSize={14} />
                {handles(data.referenceLine, 'reference', REFERENCE_COLOUR)}
              </>
            )}
            {result.data.lines.map((l, i) => (
              <Line
                key={`line-${i}`}
                points={[l.start.x, l.start.y, l.end.x, l.end.y]}
                stroke={LINE_COLOUR}
                strokeWidth={2}
              />
            ))}
            {result.data.lines.map((l, i) => (
              <Text
                key={`label-${i}`}
                {...midpoint(l)}
                text={
                  (l.lineCode ?? String(i + 1)) +
                  (def.kind === 'distance' && l.linelength !== null ? ` ${l.linelength}${unitLabel(data.unit)}` : '')
                }
                fill={LINE_COLOUR}
                fontSize={14}
              />
            ))}
            {result.data.lines.map((l, i) => handles(l, i, LINE_COLOUR))}
            {pending && (
              <>
                <Circle x={pending.x} y={pending.y} radius={4} fill={PENDING_COLOUR} />
                {pointer && (
                  <Line
                    points={[pending.x, pending.y, pointer.x, pointer.y]}
                    stroke={PENDING_COLOUR}
                    strokeWidth={1}
                    dash={[4, 4]}
                    listening={false}
                  />
                )}
              </>
            )}
          </Layer>
        </Stage>
      </div>
      <div className="spm-panel">
        <Radio.Group
          className="spm-tools"
          optionType="button"
          size="small"
          value={tool}
          aria-label={SPM_T.tools}
          onChange={(e) => {
            setTool(e.target.value as SpineMeasure);
            setMode(null);
            setPending(null);
          }}
          options={SPINE_MEASURES.map((m) => ({
            value: m,
            label: (
              <Tooltip title={SPINE_MEASURE_DEFINITIONS[m].title}>
                <span>{m}</span>
              </Tooltip>
            ),
          }))}
        />
        <div className="spm-tool-title">
          {tool} {def.title}
        </div>
        <div className="spm-tool-hint">{SPM_T.toolHints[tool]}</div>
        <div className="spm-facing">
          <span>{SPM_T.facing}</span>
          <Radio.Group
            size="small"
            optionType="button"
            aria-label={SPM_T.facing}
            value={doc.facing}
            disabled={disabled}
            onChange={(e) => commit(setFacing(doc, e.target.value as SpineFacing))}
            options={SPINE_FACINGS.map((f) => ({ value: f, label: SPM_T.facings[f] }))}
          />
        </div>
        {!disabled && (
          <Space wrap>
            {def.kind === 'distance' && (
              <Button
                size="small"
                disabled={!canDrawReference(data) || mode !== null}
                onClick={() => startDrawing('reference')}
              >
                {SPM_T.drawReference}
              </Button>
            )}
            <Button size="small" type="primary" disabled={mode !== null} onClick={() => startDrawing('line')}>
              {SPM_T.drawLine}
            </Button>
            {mode && (
              <Button
                size="small"
                onClick={() => {
                  setMode(null);
                  setPending(null);
                }}
              >
                {SPM_T.cancelDrawing}
              </Button>
            )}
            <Button size="small" danger onClick={() => commit(clearMeasure(doc, tool))}>
              {SPM_T.clearTool}
            </Button>
          </Space>
        )}
        {mode && (
          <div className="spm-hint" role="status">
            {pending ? SPM_T.clickEnd : SPM_T.clickStart}
          </div>
        )}
        {def.kind === 'distance' && (
          <div className="spm-fields">
            <label>
              <span>{SPM_T.referenceLength}</span>
              <InputNumber
                size="small"
                aria-label={SPM_T.referenceLength}
                value={data.referenceLength}
                disabled={disabled}
                onChange={(v) => commit(setReferenceLength(doc, tool, typeof v === 'number' ? v : null))}
              />
            </label>
            <label>
              <span>{SPM_T.unit}</span>
              <Select
                size="small"
                aria-label={SPM_T.unit}
                value={data.unit}
                disabled={disabled}
                style={{ width: 90 }}
                onChange={(u: SpineUnit) => commit(setUnit(doc, tool, u))}
                options={SPINE_UNITS.map((u) => ({ value: u, label: u === 'none' ? SPM_T.unitNone : u }))}
              />
            </label>
            <span className="spm-scale">
              {SPM_T.scale}：{Number(result.data.scale.toFixed(4))}
            </span>
          </div>
        )}
        <ul className="spm-lines" aria-label={SPM_T.lines}>
          {data.referenceLine && (
            <LineRow
              deleteLabel={SPM_T.deleteReference}
              onDelete={disabled ? null : () => commit(deleteLine(doc, tool, 'reference'))}
            >
              {SPM_T.reference}
              {result.data.referenceLine?.linelength != null
                ? `：${result.data.referenceLine.linelength}${unitLabel(data.unit)}`
                : ''}
            </LineRow>
          )}
          {result.data.lines.map((l, i) => (
            <LineRow
              key={i}
              deleteLabel={SPM_T.deleteLine(l.lineCode ?? String(i + 1))}
              onDelete={disabled ? null : () => commit(deleteLine(doc, tool, i))}
            >
              {SPM_T.line(l.lineCode ?? String(i + 1))}
              {def.kind === 'distance' ? `：${l.linelength}${unitLabel(data.unit)}` : ''}
            </LineRow>
          ))}
        </ul>
        <dl className="spm-result" aria-label={SPM_T.result}>
          {def.kind === 'angle' && (
            <>
              <dt>{SPM_T.angle}</dt>
              <dd data-testid="spm-angle">
                {result.angleMessage ?? (result.data.angle !== null ? `${result.data.angle}°` : '—')}
              </dd>
            </>
          )}
          {def.lineCodes && (
            <>
              <dt>{SPM_T.ratio}</dt>
              <dd data-testid="spm-ratio">{result.ratio ?? '—'}</dd>
            </>
          )}
          {tool === 'SVA' && (
            <>
              <dt>{SPM_T.svaOffset}</dt>
              <dd data-testid="spm-length">{result.sva !== null ? `${result.sva}${unitLabel(data.unit)}` : '—'}</dd>
            </>
          )}
          {result.mismatch !== null && (
            <>
              <dt>{SPM_T.mismatch}</dt>
              <dd data-testid="spm-mismatch">{result.mismatch}°</dd>
            </>
          )}
          <dt>{SPM_T.diagnosis}</dt>
          <dd data-testid="spm-diagnosis">{result.data.diagnosis || '—'}</dd>
          {result.data.symptom && (
            <>
              <dt>{SPM_T.symptom}</dt>
              <dd>{result.data.symptom}</dd>
            </>
          )}
          {result.data.medicalAdvice && (
            <>
              <dt>{SPM_T.advice}</dt>
              <dd>{result.data.medicalAdvice}</dd>
            </>
          )}
        </dl>
        {!disabled && (
          <Button
            size="small"
            danger
            type="link"
            onClick={() =>
              void ui.modal.confirm({
                title: SPM_T.confirmTitle,
                content: SPM_T.confirmRemoveImage,
                okText: SPM_T.ok,
                cancelText: SPM_T.cancel,
                onOk: () => commit(null),
              })
            }
          >
            {SPM_T.removeImage}
          </Button>
        )}
      </div>
    </div>
  );
}
