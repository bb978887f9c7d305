import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as AxeCore from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterEach, inject } from 'vitest';
import { INITIAL_PASSWORD, runServer, type ServerOptions } from './platform-process.js';
import './template-data-dir.js';

const ROOT = path.resolve(import.meta.dirname, '..');
export const ADMIN = '13800000000';
export { INITIAL_PASSWORD };
export const ARTIFACTS = path.join(ROOT, 'e2e', '.artifacts');

/** What a failed test's report shows of the pages and servers it ran against (see reportFailure). */
const openPages = new Set<Page>();
const serverOutputs = new Set<() => string>();
const FAILURES_LOG = path.join(ARTIFACTS, 'failures.log');

export interface Platform {
  baseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The platform a test file runs against: its own (startPlatform), or the one E2E_BASE_URL names (already running on an
 * empty data directory, and not stopped by the test). */
export async function platformUnderTest(): Promise<Platform> {
  const running = process.env.E2E_BASE_URL;
  return running ? { baseUrl: running, dataDir: '', stop: async () => undefined } : startPlatform();
}

/**
 * The real server, built web app included, on a data directory of its own: a copy of the one the run's first start
 * made (template-data-dir.ts), or an empty one where the run has none. See runServer for its time zone.
 */
export async function startPlatform(options: ServerOptions = {}): Promise<Platform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-e2e-'));
  const template = inject('e2eTemplateDataDir');
  if (template) fs.cpSync(template, dataDir, { recursive: true });
  // The server serves its own copy of the built app: a build started meanwhile (another run in the same
  // checkout) replaces the hashed chunks, and the pages still open would fail to load their next route.
  const webDist = path.join(dataDir, 'web');
  fs.cpSync(path.join(ROOT, 'packages', 'web', 'dist'), webDist, { recursive: true });
  const server = await runServer(dataDir, webDist, options);
  serverOutputs.add(server.output);
  return {
    baseUrl: server.baseUrl,
    dataDir,
    async stop() {
      serverOutputs.delete(server.output);
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function newPage(browser: Browser, baseUrl: string, options: { timeZone?: string } = {}): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1440, height: 900 },
    locale: 'zh-CN',
    timezoneId: options.timeZone ?? 'Asia/Shanghai',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  openPages.add(page);
  page.once('close', () => openPages.delete(page));
  return page;
}

/**
 * A wait that runs out says only what it waited for; the page as it stood shows why. After any failed test, each
 * open page's screenshot goes to .artifacts, and failures.log gets its address, the messages, alerts and dialogs
 * it showed, and the tail of the server's log (warnings and errors): `.ci/run` prints that file at its end, where
 * the record of a CI run keeps it.
 */
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const name = task.name.slice(0, 60).replace(/[^\w\u4e00-\u9fff-]+/g, '_');
  const lines = [`## ${task.file?.name ?? ''} > ${task.name}`];
  for (const page of openPages) {
    if (page.isClosed()) continue;
    await screenshot(page, `failed-${name}`).catch(() => undefined);
    const shown = await page
      .evaluate(() =>
        [
          ...document.querySelectorAll(
            '.ant-message-notice-content, .ant-notification-notice, .ant-alert, .ant-form-item-explain-error, .ant-modal-container',
          ),
        ]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => `${el.className.split(' ')[0]}: ${(el.textContent ?? '').replace(/\s+/g, ' ').slice(0, 400)}`),
      )
      .catch((error: unknown) => [`(page not readable: ${String(error)})`]);
    lines.push(`page ${page.url()}`, ...shown.map((text) => `  ${text}`));
  }
  for (const output of serverOutputs) {
    lines.push(
      'server log (tail):',
      ...output()
        .trimEnd()
        .split('\n')
        .slice(-10)
        .map((line) => `  ${line.slice(0, 300)}`),
    );
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.appendFileSync(FAILURES_LOG, `${lines.join('\n')}\n`);
});

/**
 * Waits until no antd/rc-motion element is still appearing (prepare, start or active phase): a click that lands
 * while a popup, dialog or submenu appears can miss on a loaded machine, so the click must wait for this state,
 * never for a fixed time. Leaving elements are not waited for: one may keep its leave class for good (a select's
 * dropdown closed while its page re-renders), and nobody clicks into what is closing.
 */
export async function settle(page: Page) {
  await page.waitForFunction(() => {
    const motion = /-(appear|enter)(-(prepare|start|active))?$/;
    // Only rendered elements count: one that ended hidden (display: none) may keep its last motion class.
    return ![...document.querySelectorAll('[class*="-appear"], [class*="-enter"]')].some(
      (el) =>
        el.getClientRects().length > 0 &&
        [...el.classList].some((name) => name.startsWith('ant-') && motion.test(name)),
    );
  });
}

export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Findings axe reports inside antd's own markup that our code cannot change. Each entry silences one rule on
 * the elements one selector matches, nowhere else, and says which component and why.
 */
const ANTD_EXCEPTIONS: { rule: string; selector: string; why: string }[] = [
  {
    rule: 'aria-required-children',
    selector: '.tab-strip .ant-tabs-nav',
    why: "antd Tabs (editable-card) puts each tab's close button beside its role=tab, inside the tablist",
  },
  {
    rule: 'aria-hidden-focus',
    selector: '.ant-table-measure-row',
    why: 'antd Table measures column widths in an aria-hidden row that copies the column titles, the select-all box too',
  },
  {
    rule: 'label-content-name-mismatch',
    selector: '.ant-picker-header-view button',
    why: 'antd DatePicker names its header buttons 选择年份 and 选择月份 while they show the year and the month',
  },
  {
    rule: 'scrollable-region-focusable',
    selector: '.ant-table-content:has(.ant-table-placeholder)',
    why: 'an empty antd Table keeps its columns wide enough to scroll sideways, with no row to focus',
  },
];

interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  helpUrl: string;
  nodes: { target: string[]; summary: string }[];
}

/**
 * Runs axe-core on the page as it stands and fails with a readable list when any finding is serious or critical
 * (rule, impact, the elements' selectors, what to do). The page's Content-Security-Policy refuses inline
 * scripts, so axe's source is evaluated through the debugging protocol instead of an added <script> tag.
 */
export async function expectAccessible(page: Page, name: string) {
  await settle(page);
  // Colours are measured once CSS transitions end: a button still fading to its colour measures as too pale.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
  );
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const findings = await page.evaluate(async (exceptions) => {
    const axe = (window as unknown as { axe: typeof AxeCore }).axe;
    // axe scrolls elements into view to judge their colours; restoreScroll (in axe, not in its typings) puts the
    // page back where it was, or the next step meets a page scrolled under the fixed top bar.
    const options = { elementRef: true, resultTypes: ['violations' as const], restoreScroll: true };
    const results = await axe.run(document, options);
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes
          .filter((n) => {
            const element = n.element;
            return !exceptions.some((e) => e.rule === v.id && element?.matches(e.selector));
          })
          .map((n) => ({ target: n.target.map(String), summary: n.failureSummary ?? '' })),
      }))
      .filter((v) => v.nodes.length > 0);
  }, ANTD_EXCEPTIONS);
  if (findings.length === 0) return;
  await screenshot(page, `a11y-${name}`);
  const report = (findings as AxeFinding[])
    .map(
      (f) =>
        `${f.id} (${f.impact}): ${f.help}\n  ${f.helpUrl}\n` +
        f.nodes.map((n) => `  - ${n.target.join(' ')}\n    ${n.summary.replace(/\n/g, '\n    ')}`).join('\n'),
    )
    .join('\n');
  throw new Error(`accessibility of ${name}: ${findings.length} serious or critical finding(s)\n${report}`);
}
