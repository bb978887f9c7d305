/**
 * A stand-in for the document camera's local service (高拍仪, forms §7): the browser talks to it on the
 * user's own machine, port 38088. It serves the same calls as the device's SDK service, with a moving test
 * picture as the live view and a rendered lab report (known values) as the captured photo, so the whole
 * recognition flow runs in browser tests and demos without the hardware.
 *
 *   npm run camera:sim                 listens on 127.0.0.1:38088
 *   npm run camera:sim -- --port 38090 --no-device | --sdk-off
 *
 * The calls and answers are described in docs/recognition.md, "Browser and document camera".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';

/** What the simulated machine is like; tests change it to see each of the dialog's messages. */
export interface CameraSimState {
  /** A camera is plugged in (device=isconnect answers 1 device, else 0). */
  device: boolean;
  /** The SDK service is initialised: every call answers code 0, else code 1 (请检查设备SDK是否打开). */
  sdk: boolean;
}

export interface CameraSim {
  /** http://127.0.0.1:<port> */
  url: string;
  state: CameraSimState;
  /** Whether the video of camera 0 is open (a stream was requested and not closed since). */
  readonly videoOpen: boolean;
  /** The last grabimage request's body, as parsed. */
  readonly lastGrab: Record<string, unknown> | null;
  close(): Promise<void>;
}

/** The sample report's rows: what a recognition of the captured photo should find. */
export const SAMPLE_REPORT = {
  title: '血常规检验报告单',
  rows: [
    { name: '白细胞计数', code: 'WBC', value: '6.52', unit: '10^9/L', range: '3.5-9.5', flag: '' },
    { name: '红细胞计数', code: 'RBC', value: '4.31', unit: '10^12/L', range: '4.3-5.8', flag: '' },
    { name: '血红蛋白', code: 'HGB', value: '98', unit: 'g/L', range: '130-175', flag: '↓' },
    { name: '血小板计数', code: 'PLT', value: '210', unit: '10^9/L', range: '125-350', flag: '' },
  ],
} as const;

const FONT = '"Noto Sans CJK SC", "Noto Sans CJK JP", "DejaVu Sans", sans-serif';
/** forms §9: the photo is requested at most 3300 by 2400. */
const MAX_WIDTH = 3300;
const MAX_HEIGHT = 2400;
const VIDEO_WIDTH = 640;
const VIDEO_HEIGHT = 480;
const FRAME_MS = 200;

/** Draws the lab report on a white sheet filling width × height. */
function drawReport(ctx: SKRSContext2D, width: number, height: number) {
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const unit = width / 33;
  ctx.fillStyle = '#000000';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  ctx.font = `bold ${Math.round(unit * 1.4)}px ${FONT}`;
  ctx.fillText(SAMPLE_REPORT.title, width / 2, unit * 2);
  ctx.font = `${Math.round(unit * 0.8)}px ${FONT}`;
  ctx.textAlign = 'left';
  ctx.fillText('姓名：张三    性别：男    年龄：45岁    样本：全血', unit * 2, unit * 4);
  const columns = [
    { title: '项目名称', x: 2 },
    { title: '代号', x: 9 },
    { title: '结果', x: 13 },
    { title: '单位', x: 18 },
    { title: '参考范围', x: 24 },
  ];
  const top = unit * 5.5;
  const rowHeight = unit * 2;
  ctx.lineWidth = Math.max(1, unit / 12);
  ctx.strokeStyle = '#000000';
  const line = (y: number) => {
    ctx.beginPath();
    ctx.moveTo(unit * 1.5, y);
    ctx.lineTo(width - unit * 1.5, y);
    ctx.stroke();
  };
  line(top);
  ctx.font = `bold ${Math.round(unit * 0.9)}px ${FONT}`;
  for (const column of columns) ctx.fillText(column.title, unit * column.x, top + rowHeight / 2);
  line(top + rowHeight);
  ctx.font = `${Math.round(unit * 0.9)}px ${FONT}`;
  SAMPLE_REPORT.rows.forEach((row, i) => {
    const y = top + rowHeight * (i + 1.5);
    const cells = [row.name, row.code, `${row.value}${row.flag ? ` ${row.flag}` : ''}`, row.unit, row.range];
    cells.forEach((text, c) => ctx.fillText(text, unit * columns[c]!.x, y));
  });
  line(top + rowHeight * (SAMPLE_REPORT.rows.length + 1));
  ctx.font = `${Math.round(unit * 0.7)}px ${FONT}`;
  ctx.fillText('检验者：李四    审核者：王五    报告日期：2026-11-27', unit * 2, height - unit * 1.5);
}

let photoCache: { key: string; jpeg: Buffer } | null = null;

/** The captured photo: the report at the size asked for (within 3300 × 2400), as JPEG of the quality asked for. */
export function sampleReportJpeg(width: number, height: number, quality: number): Buffer {
  const key = `${width}x${height}@${quality}`;
  if (photoCache?.key === key) return photoCache.jpeg;
  const canvas = createCanvas(width, height);
  drawReport(canvas.getContext('2d'), width, height);
  const jpeg = canvas.encodeSync('jpeg', quality);
  photoCache = { key, jpeg };
  return jpeg;
}

/** One live-view frame: the report under the lens, a scan line moving over it and a clock, so motion shows. */
function frame(tick: number): Buffer {
  const canvas = createCanvas(VIDEO_WIDTH, VIDEO_HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#3a3a3a';
  ctx.fillRect(0, 0, VIDEO_WIDTH, VIDEO_HEIGHT);
  ctx.save();
  ctx.translate(40, 60);
  drawReport(ctx, VIDEO_WIDTH - 80, VIDEO_HEIGHT - 120);
  ctx.restore();
  const y = 60 + ((tick * 12) % (VIDEO_HEIGHT - 120));
  ctx.fillStyle = 'rgba(9, 157, 173, 0.6)';
  ctx.fillRect(40, y, VIDEO_WIDTH - 80, 6);
  ctx.fillStyle = '#ffffff';
  ctx.font = `16px ${FONT}`;
  ctx.textBaseline = 'top';
  ctx.fillText(`CAM0  ${new Date().toISOString().slice(11, 19)}  #${tick}`, 12, 16);
  return canvas.encodeSync('jpeg', 70);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function parseBody(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}

const bounded = (value: unknown, fallback: number, max: number) => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), max) : fallback;
};

export async function startCameraSim(
  options: { port?: number; host?: string; state?: Partial<CameraSimState> } = {},
): Promise<CameraSim> {
  const state: CameraSimState = { device: true, sdk: true, ...options.state };
  const streams = new Set<http.ServerResponse>();
  let videoOpen = false;
  let lastGrab: Record<string, unknown> | null = null;
  let tick = 0;
  let timer: ReturnType<typeof setInterval> | null = null;

  const stopStreams = () => {
    for (const res of streams) res.end();
    streams.clear();
    if (timer) clearInterval(timer);
    timer = null;
  };

  const send = (res: http.ServerResponse, body: Record<string, unknown>) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const sdkOff = { code: 1, message: 'SDK not initialised' };

  const server = http.createServer((req, res) => {
    // The page is served from the EDC server's origin, the service from the user's machine: it must allow
    // any origin, and a private-network request from a public page (Chromium's preflight asks for it).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Allow-Private-Network', 'true');
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://camera');
    // The SDK's paths carry their parameters after "&" too: /video=stream&camidx=0.
    const call = decodeURIComponent(url.pathname.slice(1)).split('&')[0];
    void (async () => {
      const body = req.method === 'POST' ? parseBody(await readBody(req)) : {};
      switch (`${req.method} ${call}`) {
        case 'POST device=isconnect':
          return send(res, state.sdk ? { code: 0, data: state.device ? 1 : 0 } : sdkOff);
        case 'POST video=status':
          return send(res, state.sdk ? { code: 0, video0: videoOpen ? 'ok' : 'no' } : sdkOff);
        case 'GET video=close':
          videoOpen = false;
          stopStreams();
          return send(res, state.sdk ? { code: 0 } : sdkOff);
        case 'GET video=stream': {
          if (!state.sdk || !state.device) {
            res.writeHead(503).end();
            return;
          }
          videoOpen = true;
          res.writeHead(200, {
            'Content-Type': 'multipart/x-mixed-replace; boundary=frame',
            'Cache-Control': 'no-store',
            Connection: 'close',
          });
          streams.add(res);
          req.on('close', () => streams.delete(res));
          const push = (target: http.ServerResponse, jpeg: Buffer) => {
            target.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
            target.write(jpeg);
            target.write('\r\n');
          };
          push(res, frame(tick));
          timer ??= setInterval(() => {
            tick += 1;
            const jpeg = frame(tick);
            for (const target of streams) push(target, jpeg);
          }, FRAME_MS);
          return;
        }
        case 'POST video=grabimage': {
          if (!state.sdk) return send(res, sdkOff);
          if (!state.device || !videoOpen) return send(res, { code: 2, message: 'video not open' });
          lastGrab = body;
          const width = bounded(body.width, MAX_WIDTH, MAX_WIDTH);
          const height = bounded(body.height, MAX_HEIGHT, MAX_HEIGHT);
          const quality = bounded(body.quality, 100, 100);
          return send(res, { code: 0, photoBase64: sampleReportJpeg(width, height, quality).toString('base64') });
        }
        default:
          res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ code: 404 }));
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 38088, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    get videoOpen() {
      return videoOpen;
    },
    get lastGrab() {
      return lastGrab;
    },
    close: () =>
      new Promise<void>((resolve) => {
        stopStreams();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const sim = await startCameraSim({
    port: portAt >= 0 ? Number(args[portAt + 1]) : 38088,
    state: { device: !args.includes('--no-device'), sdk: !args.includes('--sdk-off') },
  });
  console.log(`document camera simulator on ${sim.url} (live view: ${sim.url}/video=stream&camidx=0)`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
