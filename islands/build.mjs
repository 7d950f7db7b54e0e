// Bundles the front end with esbuild: content-hashed files in static/build/ and a
// manifest.json mapping each plain name ("admin.js") to its hashed file.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const outdir = 'static/build';
mkdirSync(outdir, { recursive: true });
for (const f of readdirSync(outdir)) {
  if (f !== '.keep') rmSync(path.join(outdir, f), { recursive: true, force: true });
}

const entries = {
  admin: 'islands/admin.ts',
  boot: 'islands/boot.ts',
  board: 'islands/board.ts',
  islands: 'islands/islands.tsx',
  picker: 'islands/picker/main.tsx',
  app: 'static/css/app.css',
  mobile: 'islands/mobile/main.tsx',
  mobileboot: 'islands/mobile/boot.ts',
  sw: 'islands/mobile/sw.ts',
  mobilecss: 'static/css/mobile.css',
};

const result = await esbuild.build({
  entryPoints: entries,
  outdir,
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'iife',
  target: ['es2020', 'chrome100', 'safari15', 'firefox100'],
  metafile: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

const manifest = {};
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  if (!meta.entryPoint) continue;
  const name = Object.entries(entries).find(([, src]) => src === meta.entryPoint)?.[0];
  if (!name) continue;
  const ext = path.extname(out);
  manifest[name + ext] = path.basename(out);
}
writeFileSync(path.join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log('built', Object.keys(manifest).join(', '));
