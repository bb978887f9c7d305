import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert, Button, Dropdown, Empty, InputNumber, List, Modal, Segmented, Space, Spin, Upload } from 'antd';
import {
  ExportOutlined,
  FolderOpenOutlined,
  LeftOutlined,
  RightOutlined,
  ZoomInOutlined,
  ZoomOutOutlined,
  ExpandOutlined,
  DownloadOutlined,
  SendOutlined,
} from '@ant-design/icons';
import { http } from '../../api/request';
import {
  DicomError,
  dragWindow,
  fitView,
  imageDistance,
  looksLikeDicom,
  parseDicomImage,
  screenToImage,
  toRgba,
  zoomAt,
  type DicomImage,
  type Point,
  type View,
} from './dicom';
import { saveBlob } from '../../utils/download';
import type { ViewerFile } from './record-files';
import { VIEWER_T } from './texts';
import './imaging-viewer.css';

const CANVAS = { width: 720, height: 600 };

type Tool = 'window' | 'pan' | 'measure';

type Loaded =
  { kind: 'dicom'; image: DicomImage } | { kind: 'picture'; bitmap: HTMLImageElement; width: number; height: number };

async function readBytes(file: ViewerFile): Promise<Uint8Array> {
  if (file.local) return new Uint8Array(await file.local.arrayBuffer());
  const response = await http.download(file.url ?? '', { silent: true } as Record<string, unknown>);
  return new Uint8Array(await response.data.arrayBuffer());
}

function loadPicture(bytes: Uint8Array): Promise<HTMLImageElement> {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  return new Promise((resolve, reject) => {
    const img = new window.Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(VIEWER_T.cannotOpen));
    img.src = url;
  }).finally(() => URL.revokeObjectURL(url)) as Promise<HTMLImageElement>;
}

async function loadFile(file: ViewerFile): Promise<Loaded> {
  const bytes = await readBytes(file);
  if (looksLikeDicom(bytes) || /\.dcm$/i.test(file.name)) return { kind: 'dicom', image: parseDicomImage(bytes) };
  const bitmap = await loadPicture(bytes);
  return { kind: 'picture', bitmap, width: bitmap.naturalWidth, height: bitmap.naturalHeight };
}

/** The name of the PNG a DICOM frame is exported as: the file's name, the frame of several, .png. */
export function pngName(name: string, frame: number | null): string {
  const base = name.replace(/\.[^.]*$/, '') || 'image';
  return `${base}${frame !== null ? `-${frame}` : ''}.png`;
}

export interface ImagingViewerProps {
  open: boolean;
  onClose: () => void;
  files: ViewerFile[];
  /** The site's external viewer for this patient, when one is configured. */
  externalUrl?: string | null;
  /** The open form's spine items (spineCobb, spineMeasure) a DICOM frame can be sent to. */
  spineItems?: SpineTarget[];
  /** Receives the frame as shown, as a PNG file, for the spine item picked. */
  onSendToSpine?: (item: string, image: File) => void;
}

export interface SpineTarget {
  name: string;
  title: string;
}

/**
 * 影像: an in-app viewer for the images and DICOM files attached to a record (docs/spine-tools.md): uncompressed
 * DICOM decoded with dicom-parser and drawn on a canvas, window/level, zoom, pan, frames, and distances in mm from
 * the pixel spacing.
 */
export function ImagingViewer({
  open,
  onClose,
  files,
  externalUrl,
  spineItems = [],
  onSendToSpine,
}: ImagingViewerProps) {
  const [localFiles, setLocalFiles] = useState<ViewerFile[]>([]);
  const all = useMemo(() => [...files, ...localFiles], [files, localFiles]);
  const [selected, setSelected] = useState<string | null>(null);
  const current = all.find((f) => f.key === selected) ?? all[0] ?? null;

  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={VIEWER_T.title}
      width={1100}
      footer={
        externalUrl ? (
          <Button icon={<ExportOutlined />} href={externalUrl} target="_blank" rel="noreferrer">
            {VIEWER_T.external}
          </Button>
        ) : null
      }
      destroyOnHidden
    >
      <div className="viewer">
        <div className="viewer-files">
          <List
            size="small"
            dataSource={all}
            locale={{ emptyText: <Empty description={VIEWER_T.noFiles} image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
            renderItem={(f) => (
              <List.Item
                className={f.key === current?.key ? 'viewer-file viewer-file-on' : 'viewer-file'}
                onClick={() => setSelected(f.key)}
              >
                <button type="button" className="viewer-file-button" aria-pressed={f.key === current?.key}>
                  {f.name}
                </button>
              </List.Item>
            )}
          />
          <Upload
            showUploadList={false}
            beforeUpload={(file) => {
              const key = `local-${localFiles.length + 1}-${file.name}`;
              setLocalFiles((list) => [...list, { key, name: file.name, url: null, local: file }]);
              setSelected(key);
              return Upload.LIST_IGNORE;
            }}
          >
            <Button size="small" icon={<FolderOpenOutlined />}>
              {VIEWER_T.openLocal}
            </Button>
          </Upload>
        </div>
        {current ? (
          <ViewerPane
            key={current.key}
            file={current}
            spineItems={onSendToSpine ? spineItems : []}
            onSendToSpine={onSendToSpine}
          />
        ) : (
          <div className="viewer-pane" />
        )}
      </div>
    </Modal>
  );
}

interface ViewerPaneProps {
  file: ViewerFile;
  spineItems: SpineTarget[];
  onSendToSpine: ((item: string, image: File) => void) | undefined;
}

function ViewerPane({ file, spineItems, onSendToSpine }: ViewerPaneProps) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [frame, setFrame] = useState(0);
  const [win, setWin] = useState<{ center: number; width: number } | null>(null);
  const [view, setView] = useState<View | null>(null);
  const [tool, setTool] = useState<Tool>('window');
  const [points, setPoints] = useState<Point[]>([]);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const drag = useRef<{ x: number; y: number; win: { center: number; width: number }; view: View } | null>(null);

  useEffect(() => {
    let live = true;
    loadFile(file).then(
      (result) => {
        if (!live) return;
        setLoaded(result);
        const size =
          result.kind === 'dicom'
            ? { width: result.image.columns, height: result.image.rows }
            : { width: result.width, height: result.height };
        setView(fitView(size, CANVAS));
        if (result.kind === 'dicom') setWin(result.image.window);
      },
      (e: unknown) => {
        if (live) setError(e instanceof DicomError ? e.message : VIEWER_T.cannotOpen);
      },
    );
    return () => {
      live = false;
    };
  }, [file]);

  // The current frame at its own resolution, under the window.
  const source = useMemo(() => {
    if (!loaded) return null;
    if (loaded.kind === 'picture') return loaded.bitmap;
    const { image } = loaded;
    const c = document.createElement('canvas');
    c.width = image.columns;
    c.height = image.rows;
    const rgba = toRgba(image.frame(frame), image, win ?? image.window);
    c.getContext('2d')?.putImageData(new ImageData(rgba, image.columns, image.rows), 0, 0);
    return c;
  }, [loaded, frame, win]);

  const spacing = loaded?.kind === 'dicom' ? loaded.image.pixelSpacing : null;
  const distance = points.length === 2 ? imageDistance(points[0]!, points[1]!, spacing) : null;

  useEffect(() => {
    const ctx = canvasRef.current?.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, CANVAS.width, CANVAS.height);
    if (!source || !view) return;
    ctx.setTransform(view.zoom, 0, 0, view.zoom, view.panX, view.panY);
    ctx.imageSmoothingEnabled = view.zoom < 1;
    ctx.drawImage(source, 0, 0);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    const screen = (p: Point) => ({ x: p.x * view.zoom + view.panX, y: p.y * view.zoom + view.panY });
    ctx.strokeStyle = '#ffd600';
    ctx.fillStyle = '#ffd600';
    ctx.lineWidth = 2;
    const [a, b] = points.map(screen);
    if (a) {
      ctx.beginPath();
      ctx.arc(a.x, a.y, 3, 0, Math.PI * 2);
      ctx.fill();
    }
    if (a && b) {
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(b.x, b.y);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(b.x, b.y, 3, 0, Math.PI * 2);
      ctx.fill();
      if (distance) {
        ctx.font = '14px sans-serif';
        ctx.fillText(`${distance.value.toFixed(2)} ${distance.unit}`, b.x + 8, b.y - 8);
      }
    }
  }, [source, view, points, distance]);

  // The wheel zooms about the mouse; the page must not scroll meanwhile (a passive React handler cannot stop it).
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = canvas.getBoundingClientRect();
      const at = { x: e.clientX - r.left, y: e.clientY - r.top };
      setView((v) => (v ? zoomAt(v, e.deltaY < 0 ? 1.1 : 1 / 1.1, at) : v));
    };
    canvas.addEventListener('wheel', onWheel, { passive: false });
    return () => canvas.removeEventListener('wheel', onWheel);
  }, [loaded]);

  const local = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  if (error) return <Alert className="viewer-pane" type="error" message={error} showIcon />;
  if (!loaded || !view) {
    return (
      <div className="viewer-pane viewer-loading">
        <Spin />
      </div>
    );
  }

  const dicom = loaded.kind === 'dicom' ? loaded.image : null;
  const size =
    loaded.kind === 'dicom'
      ? { width: loaded.image.columns, height: loaded.image.rows }
      : { width: loaded.width, height: loaded.height };
  const centre = { x: CANVAS.width / 2, y: CANVAS.height / 2 };

  return (
    <div className="viewer-pane">
      <Space wrap className="viewer-bar">
        <Segmented<Tool>
          value={tool}
          onChange={(t) => {
            setTool(t);
            setPoints([]);
          }}
          options={[
            { value: 'window', label: VIEWER_T.toolWindow, disabled: !dicom },
            { value: 'pan', label: VIEWER_T.toolPan },
            { value: 'measure', label: VIEWER_T.toolMeasure },
          ]}
        />
        <Button
          icon={<ZoomInOutlined />}
          aria-label={VIEWER_T.zoomIn}
          onClick={() => setView(zoomAt(view, 1.25, centre))}
        />
        <Button
          icon={<ZoomOutOutlined />}
          aria-label={VIEWER_T.zoomOut}
          onClick={() => setView(zoomAt(view, 1 / 1.25, centre))}
        />
        <Button icon={<ExpandOutlined />} aria-label={VIEWER_T.fit} onClick={() => setView(fitView(size, CANVAS))} />
        {dicom && source instanceof HTMLCanvasElement && (
          <Button
            icon={<DownloadOutlined />}
            onClick={() =>
              source.toBlob((blob) => blob && saveBlob(blob, pngName(file.name, dicom.frames > 1 ? frame + 1 : null)))
            }
          >
            {VIEWER_T.exportPng}
          </Button>
        )}
        {dicom && source instanceof HTMLCanvasElement && onSendToSpine && spineItems.length > 0 && (
          <SendToSpine
            items={spineItems}
            onPick={(item) =>
              source.toBlob((blob) => {
                const name = pngName(file.name, dicom.frames > 1 ? frame + 1 : null);
                if (blob) onSendToSpine(item, new File([blob], name, { type: 'image/png' }));
              }, 'image/png')
            }
          />
        )}
        <span className="viewer-zoom">{Math.round(view.zoom * 100)}%</span>
      </Space>
      {dicom && win && (
        <Space wrap className="viewer-bar">
          <label>
            {VIEWER_T.windowWidth}{' '}
            <InputNumber
              size="small"
              aria-label={VIEWER_T.windowWidth}
              min={1}
              value={Math.round(win.width)}
              onChange={(v) => typeof v === 'number' && setWin({ ...win, width: Math.max(1, v) })}
            />
          </label>
          <label>
            {VIEWER_T.windowCenter}{' '}
            <InputNumber
              size="small"
              aria-label={VIEWER_T.windowCenter}
              value={Math.round(win.center)}
              onChange={(v) => typeof v === 'number' && setWin({ ...win, center: v })}
            />
          </label>
          <Button size="small" onClick={() => setWin(dicom.window)}>
            {VIEWER_T.resetWindow}
          </Button>
          {dicom.frames > 1 && (
            <>
              <Button
                size="small"
                icon={<LeftOutlined />}
                aria-label={VIEWER_T.prevFrame}
                disabled={frame === 0}
                onClick={() => setFrame(frame - 1)}
              />
              <span data-testid="viewer-frame">{VIEWER_T.frame(frame + 1, dicom.frames)}</span>
              <Button
                size="small"
                icon={<RightOutlined />}
                aria-label={VIEWER_T.nextFrame}
                disabled={frame >= dicom.frames - 1}
                onClick={() => setFrame(frame + 1)}
              />
            </>
          )}
        </Space>
      )}
      <canvas
        ref={canvasRef}
        width={CANVAS.width}
        height={CANVAS.height}
        className="viewer-canvas"
        data-tool={tool}
        aria-label={VIEWER_T.canvas}
        onMouseDown={(e) => {
          if (tool === 'measure') return;
          const p = local(e);
          drag.current = { ...p, win: win ?? { center: 0, width: 1 }, view };
        }}
        onMouseMove={(e) => {
          const start = drag.current;
          if (!start) return;
          const p = local(e);
          const [dx, dy] = [p.x - start.x, p.y - start.y];
          if (tool === 'pan') setView({ ...start.view, panX: start.view.panX + dx, panY: start.view.panY + dy });
          else if (dicom) setWin(dragWindow(start.win, dx, dy, Math.max(1, dicom.window.width / 256)));
        }}
        onMouseUp={() => (drag.current = null)}
        onMouseLeave={() => (drag.current = null)}
        onClick={(e) => {
          if (tool !== 'measure') return;
          const p = screenToImage(view, local(e));
          setPoints((list) => (list.length === 1 ? [list[0]!, p] : [p]));
        }}
      />
      <div className="viewer-info">
        <span>
          {size.width} × {size.height}
        </span>
        {dicom && win && (
          <span>
            {VIEWER_T.windowWidth} {Math.round(win.width)} / {VIEWER_T.windowCenter} {Math.round(win.center)}
          </span>
        )}
        {dicom && (
          <span>
            {dicom.pixelSpacing
              ? VIEWER_T.spacing(dicom.pixelSpacing.row, dicom.pixelSpacing.column)
              : VIEWER_T.noSpacing}
          </span>
        )}
        {tool === 'measure' && (
          <span data-testid="viewer-distance">
            {distance
              ? VIEWER_T.distance(distance.value.toFixed(2), distance.unit)
              : points.length === 1
                ? VIEWER_T.clickEnd
                : VIEWER_T.clickStart}
          </span>
        )}
      </div>
    </div>
  );
}

/** 发送到脊柱测量: one spine item takes the frame directly; with several the user picks the item. */
function SendToSpine({ items, onPick }: { items: SpineTarget[]; onPick: (item: string) => void }) {
  if (items.length === 1) {
    return (
      <Button icon={<SendOutlined />} onClick={() => onPick(items[0]!.name)}>
        {VIEWER_T.sendToSpine}
      </Button>
    );
  }
  return (
    <Dropdown
      trigger={['click']}
      menu={{ items: items.map((i) => ({ key: i.name, label: i.title })), onClick: ({ key }) => onPick(key) }}
    >
      <Button icon={<SendOutlined />}>{VIEWER_T.sendToSpine}</Button>
    </Dropdown>
  );
}
