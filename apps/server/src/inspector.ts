/** The web inspector: static files from ../public, served as they are (plain ES modules, no build step). */
import { readFileSync } from 'node:fs';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/inspector/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/api.js': { file: 'api.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/inspector/extras.js': { file: 'extras.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/formation.js': { file: 'formation.js', type: 'text/javascript; charset=utf-8' },
  '/inspector/graph.js': { file: 'graph.js', type: 'text/javascript; charset=utf-8' },
};

export interface Asset {
  body: Buffer;
  headers: Record<string, string>;
}

/** Every inspector file by URL path, read once. */
export function inspectorAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [path, { file, type }] of Object.entries(FILES)) {
    let body: Buffer;
    try {
      body = readFileSync(new URL(`../public/${file}`, import.meta.url));
    } catch {
      continue;
    }
    assets.set(path, {
      body,
      headers: {
        'content-type': type,
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      },
    });
  }
  return assets;
}
