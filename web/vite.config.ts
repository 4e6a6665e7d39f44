import { defineConfig } from 'vite';
import { precompress } from './vite-plugins/precompress.js';

export default defineConfig({
  resolve: { conditions: ['@sluice/source'] },
  // Brotli and gzip copies of the text files, served by the server as they are.
  plugins: [precompress()],
  server: { proxy: { '/api': 'http://localhost:3000', '/v1': 'http://localhost:3000' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Report compressed sizes: the console's initial JavaScript must stay under 300 KB gzipped.
    reportCompressedSize: true,
    rolldownOptions: {
      onwarn(warning, warn) {
        // Mantine marks its modules "use client" (for React Server Components); harmless here.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
