// The dashboard's static files, shipped in the package (static/dashboard, and uPlot from
// vendor/uplot): read once when the daemon starts, served from memory. No CDN, no build step. A
// missing file is one line at start and a 503 naming it at `/`; the daemon still serves RPCs.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** URL name → file, relative to the package root. */
const FILES: Record<string, string> = {
  'index.html': 'static/dashboard/index.html',
  'app.js': 'static/dashboard/app.js',
  'auth.js': 'static/dashboard/auth.js',
  'charts.js': 'static/dashboard/charts.js',
  'gantt.js': 'static/dashboard/gantt.js',
  'tables.js': 'static/dashboard/tables.js',
  'dashboard.css': 'static/dashboard/dashboard.css',
  'uPlot.iife.min.js': 'vendor/uplot/uPlot.iife.min.js',
  'uPlot.min.css': 'vendor/uplot/uPlot.min.css',
};

export type DashboardAssets = { ok: true; files: Map<string, Asset> } | { ok: false; problem: string };

export function loadDashboardAssets(packageRoot: string): DashboardAssets {
  const files = new Map<string, Asset>();
  for (const [name, rel] of Object.entries(FILES)) {
    const file = path.join(packageRoot, rel);
    try {
      files.set(name, { body: readFileSync(file), type: TYPES[path.extname(name)]! });
    } catch (err) {
      return { ok: false, problem: `dashboard file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): reinstall cuzk` };
    }
  }
  return { ok: true, files };
}
