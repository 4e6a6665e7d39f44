import { defineConfig } from 'vite';

export default defineConfig({
  resolve: { conditions: ['@sluice/source'] },
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
