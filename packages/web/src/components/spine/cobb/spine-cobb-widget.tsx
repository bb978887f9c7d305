import { useMemo, useRef, useState } from 'react';
import { Alert, Button, Slider, Space } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Circle, Group, Image as KonvaImage, Layer, Line, Rect, Stage, Text } from 'react-konva';
import type Konva from 'konva';
import { defaultSpineTemplate, readSpineCobb, spineCobbValue, vertebraName, type SpineCobbValue } from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../../../crf/crf-store';
import { fileUrl } from '../../../crf/upload-rules';
import type { ControlProps } from '../../../crf/widgets/widget-types';
import { getPrediction } from './cobb.api';
import {
  COBB_CANVAS,
  COBB_DISPLAY_SCALE,
  CURVE_COLOURS,
  CURVE_KEYS,
  DETECTION_SCALE,
  addVertebra,
  clampDetectionScale,
  cornerAt,
  fitImage,
  formatAngle,
  fromCanvas,
  labelPosition,
  levelTexts,
  moveCorner,
  recomputed,
  removeVertebra,
  toCanvas,
  vertebraCount,
  wheelZoom,
} from './cobb-state';
import { SpineUploadArea } from '../spine-upload-area';
import { useFilmUpload } from '../use-film-upload';
import { useImageElement } from '../use-image-element';
import { COBB_T } from './texts';
import './spine-cobb.css';

const HANDLE_RADIUS = 9;
const LINE_COLOUR = '#00e5ff';

/**
 * 脊柱自动测量 (forms §3, §4, §9; SPA-01..SPA-10): before upload an upload area; after it the X-ray on the
 * 1084 × 2437 canvas with the 68 corners, the vertebrae's midpoint lines and the three Cobb angles in their colours.
 * Corners are dragged (semi-automatic mode), vertebrae added or removed, and the angles recomputed by core on
 * every move. The value is the result JSON with full precision; clearing it returns to the upload area.
 */
export function SpineCobbWidget({ node, id, value, disabled, onChange, onBlur, labelId }: ControlProps) {
  const store = useCrfStore();
  const canUpload = useStoreSlice(store, (s) => s.canUpload);
  const stored = useMemo(() => readSpineCobb(value), [value]);
  // While a corner is dragged the angles follow it here; the value is written when it is let go.
  const [draft, setDraft] = useState<SpineCobbValue | null>(null);
  const current = draft ?? stored;
  const [notice, setNotice] = useState<string | null>(null);
  const [zoom, setZoom] = useState(1);
  const [pan, setPan] = useState({ x: 0, y: 0 });
  const [detectionScale, setDetectionScale] = useState(1);
  const [selected, setSelected] = useState<number | null>(null);
  const imageSrc = current ? fileUrl(current.imgURL) : null;
  const image = useImageElement(imageSrc);
  const stageRef = useRef<Konva.Stage>(null);

  const emit = (next: SpineCobbValue | null) => {
    setDraft(null);
    onChange(next === null ? undefined : JSON.stringify(next));
    onBlur();
  };

  // A frame sent from the imaging viewer is recognised like a file chosen here.
  const { busy, upload } = useFilmUpload(node.name, disabled, COBB_T.uploadFailed, async (file) => {
    const result = await store.upload(file, 'image');
    const key = result.fileKey ?? null;
    if (!key) throw new Error(COBB_T.uploadFailed);
    const answer = await getPrediction(key, file);
    const prediction = answer.data;
    const landmarks = prediction.model ? prediction.landmarks : defaultSpineTemplate();
    setNotice(prediction.model ? null : answer.msg);
    setZoom(1);
    setPan({ x: 0, y: 0 });
    setSelected(null);
    emit(
      spineCobbValue({
        landmarks,
        imgWidth: prediction.imgWidth,
        imgHeight: prediction.imgHeight,
        imgURL: prediction.imgURL,
        detections: prediction.detections,
      }),
    );
  });

  if (!current) {
    return (
      <SpineUploadArea
        className="spc-upload"
        id={id}
        labelId={labelId}
        disabled={disabled || busy || !canUpload}
        text={busy ? COBB_T.recognising : COBB_T.uploadHint}
        hint={COBB_T.uploadTypes}
        onFile={(file) => void upload(file)}
      />
    );
  }

  const value0 = current;
  const rect = fitImage(value0.imgWidth, value0.imgHeight);
  const n = vertebraCount(value0.landmarks);
  const highlighted = new Map<number, string>();
  for (const key of [...CURVE_KEYS].reverse()) {
    for (const k of value0.angles[key].idxs) highlighted.set(k, CURVE_COLOURS[key]);
  }
  const scale = COBB_DISPLAY_SCALE * zoom;
  const levels = levelTexts(value0);

  const onWheel = (e: Konva.KonvaEventObject<WheelEvent>) => {
    e.evt.preventDefault();
    const stage = stageRef.current;
    const pointer = stage?.getPointerPosition();
    const next = wheelZoom(zoom, e.evt.deltaY);
    if (pointer) {
      // The point under the pointer stays put.
      const at = { x: (pointer.x - pan.x) / scale, y: (pointer.y - pan.y) / scale };
      const nextScale = COBB_DISPLAY_SCALE * next;
      setPan({ x: pointer.x - at.x * nextScale, y: pointer.y - at.y * nextScale });
    }
    setZoom(next);
  };

  const dragTo = (i: number, e: Konva.KonvaEventObject<DragEvent>) => {
    const moved = moveCorner(value0.landmarks, i, fromCanvas(rect, [e.target.x(), e.target.y()]));
    return recomputed(value0, moved);
  };

  return (
    <div className="spc" id={id} role="group" aria-labelledby={labelId}>
      {notice && (
        <Alert className="spc-notice" type="info" showIcon message={notice} description={COBB_T.semiAutomatic} />
      )}
      <div className="spc-results">
        {CURVE_KEYS.map((key) => (
          <span key={key} className="spc-angle" style={{ borderColor: CURVE_COLOURS[key] }}>
            <span className="spc-angle-key" style={{ background: CURVE_COLOURS[key] }}>
              {key.toUpperCase()}
            </span>
            <span data-testid={`spc-angle-${key}`}>{formatAngle(value0.angles[key].angle)}</span>
            {levels[key] && (
              <span className="spc-levels" data-testid={`spc-levels-${key}`}>
                {levels[key]}
              </span>
            )}
          </span>
        ))}
        <span className="spc-curve">
          {COBB_T.curveType}：
          <span data-testid="spc-curve">{value0.curve_type === 'C' ? COBB_T.curveC : COBB_T.curveS}</span>
        </span>
      </div>
      <Space className="spc-tools" wrap>
        <span>
          {COBB_T.zoom}：<span data-testid="spc-zoom">{Math.round(zoom * 100)}%</span>
        </span>
        <Button size="small" onClick={() => (setZoom(1), setPan({ x: 0, y: 0 }))}>
          {COBB_T.resetZoom}
        </Button>
        <span className="spc-slider-label">{COBB_T.detectionScale}</span>
        <Slider
          className="spc-slider"
          min={DETECTION_SCALE.min}
          max={DETECTION_SCALE.max}
          step={0.5}
          value={detectionScale}
          onChange={(v) => setDetectionScale(clampDetectionScale(v))}
          aria-label={COBB_T.detectionScale}
        />
        <Button
          size="small"
          icon={<PlusOutlined />}
          disabled={disabled}
          onClick={() => emit(recomputed(value0, addVertebra(value0.landmarks)))}
        >
          {COBB_T.addVertebra}
        </Button>
        <Button
          size="small"
          icon={<DeleteOutlined />}
          disabled={disabled || selected === null || n <= 2}
          onClick={() => {
            if (selected === null) return;
            setSelected(null);
            emit(recomputed(value0, removeVertebra(value0.landmarks, selected)));
          }}
        >
          {COBB_T.removeVertebra}
        </Button>
        <Button size="small" danger disabled={disabled} onClick={() => (setNotice(null), emit(null))}>
          {COBB_T.clear}
        </Button>
        <span className="spc-selected">
          {selected === null ? COBB_T.noSelection : COBB_T.selected(vertebraName(selected, n))}
        </span>
      </Space>
      <div className="spc-stage" aria-label={COBB_T.canvas} data-canvas={`${COBB_CANVAS.width}x${COBB_CANVAS.height}`}>
        <Stage
          ref={stageRef}
          width={COBB_CANVAS.width * COBB_DISPLAY_SCALE}
          height={COBB_CANVAS.height * COBB_DISPLAY_SCALE}
          onWheel={onWheel}
        >
          <Layer x={pan.x} y={pan.y} scaleX={scale} scaleY={scale}>
            <Rect width={COBB_CANVAS.width} height={COBB_CANVAS.height} fill="#000" />
            {image && <KonvaImage image={image} x={rect.x} y={rect.y} width={rect.width} height={rect.height} />}
            {value0.detections.map((d, k) => {
              const [x0, y0] = toCanvas(rect, [d.xmin / value0.imgWidth, d.ymin / value0.imgHeight]);
              const [x1, y1] = toCanvas(rect, [d.xmax / value0.imgWidth, d.ymax / value0.imgHeight]);
              const cx = (x0 + x1) / 2;
              const cy = (y0 + y1) / 2;
              const w = ((x1 - x0) * detectionScale) / 2;
              const h = ((y1 - y0) * detectionScale) / 2;
              return (
                <Rect
                  key={`d${k}`}
                  x={cx - w}
                  y={cy - h}
                  width={2 * w}
                  height={2 * h}
                  stroke="#ffeb3b"
                  strokeWidth={2}
                  listening={false}
                />
              );
            })}
            {value0.midpoint_lines.map(([l, r], k) => {
              const a = toCanvas(rect, [l[0] / value0.imgWidth, l[1] / value0.imgHeight]);
              const b = toCanvas(rect, [r[0] / value0.imgWidth, r[1] / value0.imgHeight]);
              const colour = highlighted.get(k);
              // The end vertebrae of a curve: their line drawn longer, in the curve's colour.
              const ext = colour ? 0.6 : 0;
              const dx = (b[0] - a[0]) * ext;
              const dy = (b[1] - a[1]) * ext;
              return (
                <Line
                  key={`m${k}`}
                  points={[a[0] - dx, a[1] - dy, b[0] + dx, b[1] + dy]}
                  stroke={colour ?? LINE_COLOUR}
                  strokeWidth={colour ? 5 : 3}
                  listening={false}
                />
              );
            })}
            {Array.from({ length: n }, (_, k) => {
              const pts = [0, 1, 3, 2].map((c) => toCanvas(rect, cornerAt(value0.landmarks, k * 4 + c)));
              return (
                <Line
                  key={`v${k}`}
                  points={pts.flat()}
                  closed
                  stroke={selected === k ? '#ffffff' : 'rgba(0,229,255,0.5)'}
                  strokeWidth={selected === k ? 3 : 1.5}
                  listening={false}
                />
              );
            })}
            {CURVE_KEYS.map((key, order) => {
              const [x, y] = labelPosition(value0, rect, key, order);
              return (
                <Text
                  key={`t${key}`}
                  x={x}
                  y={y}
                  text={`${key.toUpperCase()} ${formatAngle(value0.angles[key].angle)}`}
                  fontSize={34}
                  fontStyle="bold"
                  fill={CURVE_COLOURS[key]}
                  listening={false}
                />
              );
            })}
            <Group>
              {Array.from({ length: n * 4 }, (_, i) => {
                const [x, y] = toCanvas(rect, cornerAt(value0.landmarks, i));
                const k = Math.floor(i / 4);
                return (
                  <Circle
                    key={`c${i}`}
                    name={`corner-${i}`}
                    x={x}
                    y={y}
                    radius={(HANDLE_RADIUS * detectionScale) / zoom}
                    fill={highlighted.get(k) ?? '#ff4081'}
                    stroke="#fff"
                    strokeWidth={1 / zoom}
                    draggable={!disabled}
                    onMouseDown={() => setSelected(k)}
                    onTouchStart={() => setSelected(k)}
                    onDragMove={(e) => setDraft(dragTo(i, e))}
                    onDragEnd={(e) => emit(dragTo(i, e))}
                  />
                );
              })}
            </Group>
          </Layer>
        </Stage>
      </div>
    </div>
  );
}
