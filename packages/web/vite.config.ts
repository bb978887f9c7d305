import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API server the dev server forwards to; another one can be named for side-by-side runs.
const server = process.env.EDC_API_TARGET ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: server, changeOrigin: true },
      '/socket.io': { target: server, ws: true, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    // dist/.vite/manifest.json: bench/first-page.ts sums the sign-in page's chunks from it.
    manifest: true,
    rolldownOptions: {
      output: {
        // Framework code changes rarely; separate chunks keep it cached across releases,
        // while every page arrives as its own lazy chunk (see router.tsx).
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/, priority: 30 },
          ],
        },
      },
    },
  },
});
