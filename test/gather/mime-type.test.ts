import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mimeType } from '../../gather/server.js';

// What the artifact server sent before it asked mime-types: the same answer for every extension it knew.
const SENT: Record<string, string> = {
  'a.html': 'text/html; charset=utf-8',
  'a.HTM': 'text/html; charset=utf-8',
  'a.xhtml': 'application/xhtml+xml',
  'css/a.css': 'text/css; charset=utf-8',
  'a.js': 'text/javascript; charset=utf-8',
  'a.mjs': 'text/javascript; charset=utf-8',
  'a.cjs': 'text/javascript; charset=utf-8',
  'a.json': 'application/json',
  'a.webmanifest': 'application/manifest+json',
  'a.js.map': 'application/json',
  'a.txt': 'text/plain; charset=utf-8',
  'a.md': 'text/markdown; charset=utf-8',
  'a.csv': 'text/csv; charset=utf-8',
  'a.xml': 'application/xml',
  'a.svg': 'image/svg+xml',
  'a.png': 'image/png',
  'a.jpg': 'image/jpeg',
  'a.jpeg': 'image/jpeg',
  'a.gif': 'image/gif',
  'a.webp': 'image/webp',
  'a.avif': 'image/avif',
  'a.ico': 'image/x-icon',
  'a.bmp': 'image/bmp',
  'a.mp4': 'video/mp4',
  'a.webm': 'video/webm',
  'a.ogv': 'video/ogg',
  'a.mov': 'video/quicktime',
  'a.mp3': 'audio/mpeg',
  'a.wav': 'audio/wav',
  'a.ogg': 'audio/ogg',
  'a.m4a': 'audio/mp4',
  'a.flac': 'audio/flac',
  'a.woff': 'font/woff',
  'a.woff2': 'font/woff2',
  'a.ttf': 'font/ttf',
  'a.otf': 'font/otf',
  'a.eot': 'application/vnd.ms-fontobject',
  'a.vtt': 'text/vtt',
  'a.wasm': 'application/wasm',
  'a.pdf': 'application/pdf',
};

describe('artifact server: Content-Type by extension', () => {
  it('answers as before for every extension it served', () => {
    for (const [path, type] of Object.entries(SENT)) assert.equal(mimeType(path), type, path);
  });
  it('falls back to octet-stream without an extension or for one nobody knows', () => {
    assert.equal(mimeType('LICENSE'), 'application/octet-stream');
    assert.equal(mimeType('a.zzzunknown'), 'application/octet-stream');
    assert.equal(mimeType('.htaccess'), 'application/octet-stream');
  });
});
