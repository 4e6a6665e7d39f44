import { defineConfig } from 'vite';

export default defineConfig({
  resolve: { conditions: ['@sluice/source'] },
  server: { proxy: { '/api': 'http://localhost:3000', '/v1': 'http://localhost:3000' } },
  build: { outDir: 'dist', emptyOutDir: true },
});
